// Command get-contact is the Lambda function serving GET /api/v1/contacts/{id}.
package main

import (
	"github.com/sesame-mail/sesame/internal/api/audience"
	"github.com/sesame-mail/sesame/internal/api/wire"
)

func main() { wire.Main(audience.GetContact) }
