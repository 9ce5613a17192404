// Command send-bulk is the Lambda function serving POST /api/v1/send/bulk.
package main

import (
	"github.com/sesame-mail/sesame/internal/api/bulk"
	"github.com/sesame-mail/sesame/internal/api/wire"
)

func main() { wire.Main(bulk.SendBulk) }
