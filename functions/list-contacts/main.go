// Command list-contacts is the Lambda function serving GET /api/v1/contacts.
package main

import (
	"github.com/sesame-mail/sesame/internal/api/contacts"
	"github.com/sesame-mail/sesame/internal/api/wire"
)

func main() { wire.Main(contacts.ListContacts) }
