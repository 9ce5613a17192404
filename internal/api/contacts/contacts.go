// Package contacts declares the functions of the contact routes
// (create-, list-, get-, update-, delete-contact): each builds the key
// lookup and the contact service over the contacts repository, and
// nothing else.
package contacts

import (
	"log/slog"

	"github.com/sesame-mail/sesame/internal/api/wire/tablefn"
	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/contact/contacthttp"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/contactdb"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/routes"
)

// The contact routes' functions; the list signs its cursors.
var (
	CreateContact = tablefn.Read(routes.CreateContact, contacts)
	ListContacts  = tablefn.List(routes.ListContacts, contacts)
	GetContact    = tablefn.Read(routes.GetContact, contacts)
	UpdateContact = tablefn.Read(routes.UpdateContact, contacts)
	DeleteContact = tablefn.Read(routes.DeleteContact, contacts)
)

func contacts(t *dynamo.Table, c httpapi.Cursors, _ *slog.Logger) []httpapi.Route {
	return Handlers(t, c).Routes()
}

// Handlers serves the contact routes over t.
func Handlers(t *dynamo.Table, c httpapi.Cursors) contacthttp.Handlers {
	return contacthttp.Handlers{Service: &contact.Service{Store: &contactdb.Contacts{Table: t}}, Cursors: c}
}
