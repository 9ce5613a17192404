// Command update-contact is the Lambda function serving PATCH /api/v1/contacts/{id}.
package main

import (
	"github.com/sesame-mail/sesame/internal/api/contacts"
	"github.com/sesame-mail/sesame/internal/api/wire"
)

func main() { wire.Main(contacts.UpdateContact) }
