// Command get-openapi is the Lambda function serving GET /api/v1/openapi.json.
package main

import (
	"github.com/sesame-mail/sesame/internal/api"
	"github.com/sesame-mail/sesame/internal/routes"
)

func main() { api.LambdaMain(routes.OpenAPI) }
