// Command create-template is the Lambda function serving POST /api/v1/templates.
package main

import (
	"github.com/sesame-mail/sesame/internal/api/templates"
	"github.com/sesame-mail/sesame/internal/api/wire"
)

func main() { wire.Main(templates.CreateTemplate) }
