// Command send is the Lambda function serving POST /api/v1/send.
package main

import (
	"github.com/sesame-mail/sesame/internal/api"
	"github.com/sesame-mail/sesame/internal/routes"
)

func main() { api.LambdaMain(routes.Send) }
