// Command send is the Lambda function serving POST /api/v1/send.
package main

import (
	"github.com/sesame-mail/sesame/internal/api/emails/send"
	"github.com/sesame-mail/sesame/internal/api/wire"
)

func main() { wire.Main(send.Send) }
