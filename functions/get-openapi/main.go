// Command get-openapi is the Lambda function serving GET /api/v1/openapi.json.
package main

import (
	"github.com/sesame-mail/sesame/internal/api/openapi"
	"github.com/sesame-mail/sesame/internal/api/wire"
)

func main() { wire.Main(openapi.OpenAPI) }
