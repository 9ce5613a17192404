// Command delete-template is the Lambda function serving DELETE /api/v1/templates/{id}.
package main

import (
	"github.com/sesame-mail/sesame/internal/api/templates"
	"github.com/sesame-mail/sesame/internal/api/wire"
)

func main() { wire.Main(templates.DeleteTemplate) }
