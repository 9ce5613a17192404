// Command cancel-email is the Lambda function serving POST /api/v1/emails/{id}/cancel.
package main

import (
	"github.com/sesame-mail/sesame/internal/api/emails/cancel"
	"github.com/sesame-mail/sesame/internal/api/wire"
)

func main() { wire.Main(cancel.CancelEmail) }
