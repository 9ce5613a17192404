// Command list-clicks is the Lambda function serving GET /api/v1/emails/{id}/clicks.
package main

import (
	"github.com/sesame-mail/sesame/internal/api/emails"
	"github.com/sesame-mail/sesame/internal/api/wire"
)

func main() { wire.Main(emails.Clicks) }
