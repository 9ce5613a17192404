// Package audience declares the functions of the contact routes: each
// builds the DynamoDB client, the key lookup and the contacts repository,
// and nothing else.
package audience

import (
	"log/slog"

	"github.com/sesame-mail/sesame/internal/api/tableroutes"
	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/contact/contacthttp"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/routes"
)

// The contact routes' functions; the list signs its cursors.
var (
	CreateContact = tableroutes.Read(routes.CreateContact, contacts)
	ListContacts  = tableroutes.List(routes.ListContacts, contacts)
	GetContact    = tableroutes.Read(routes.GetContact, contacts)
	UpdateContact = tableroutes.Read(routes.UpdateContact, contacts)
	DeleteContact = tableroutes.Read(routes.DeleteContact, contacts)
)

func contacts(t *dynamo.Table, c httpapi.Cursors, _ *slog.Logger) []httpapi.Route {
	return Handlers(t, c).Routes()
}

// Handlers serves the contact routes over t.
func Handlers(t *dynamo.Table, c httpapi.Cursors) contacthttp.Handlers {
	return contacthttp.Handlers{Service: &contact.Service{Store: &dynamo.Contacts{Table: t}}, Cursors: c}
}
