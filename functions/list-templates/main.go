// Command list-templates is the Lambda function serving GET /api/v1/templates.
package main

import (
	"github.com/sesame-mail/sesame/internal/api/templates"
	"github.com/sesame-mail/sesame/internal/api/wire"
)

func main() { wire.Main(templates.ListTemplates) }
