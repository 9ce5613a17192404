// Command list-clicks is the Lambda function serving GET /api/v1/emails/{id}/clicks.
package main

import (
	"github.com/sesame-mail/sesame/internal/api"
	"github.com/sesame-mail/sesame/internal/routes"
)

func main() { api.LambdaMain(routes.Clicks) }
