// Command send-batch is the Lambda function serving POST /api/v1/send/batch.
package main

import (
	"github.com/sesame-mail/sesame/internal/api"
	"github.com/sesame-mail/sesame/internal/routes"
)

func main() { api.LambdaMain(routes.SendBatch) }
