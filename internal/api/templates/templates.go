// Package templates declares the functions of the stored template routes:
// each builds the DynamoDB client, the key lookup and the template
// service over the table, and nothing else.
package templates

import (
	"log/slog"

	"github.com/sesame-mail/sesame/internal/api/wire/tablefn"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/contactdb"
	"github.com/sesame-mail/sesame/internal/dynamo/emailtemplatedb"
	"github.com/sesame-mail/sesame/internal/dynamo/sendingdb"
	"github.com/sesame-mail/sesame/internal/emailtemplate"
	"github.com/sesame-mail/sesame/internal/emailtemplate/templatehttp"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/sending"
)

// The template routes' functions; the list signs its cursors.
var (
	CreateTemplate = tablefn.Read(routes.CreateTemplate, templates)
	ListTemplates  = tablefn.List(routes.ListTemplates, templates)
	GetTemplate    = tablefn.Read(routes.GetTemplate, templates)
	UpdateTemplate = tablefn.Read(routes.UpdateTemplate, templates)
	DeleteTemplate = tablefn.Read(routes.DeleteTemplate, templates)
)

func templates(t *dynamo.Table, c httpapi.Cursors, _ *slog.Logger) []httpapi.Route {
	return Handlers(t, c).Routes()
}

// Handlers serves the template routes over t.
func Handlers(t *dynamo.Table, c httpapi.Cursors) templatehttp.Handlers {
	return templatehttp.Handlers{Service: Service(t), Cursors: c}
}

// Service is the template service over t: its layouts reviewed with the
// send route's verdicts, its contact variables read from the contacts.
func Service(t *dynamo.Table) *emailtemplate.Service {
	return &emailtemplate.Service{
		Store:    &emailtemplatedb.Templates{Table: t},
		Reviewer: sending.LayoutReviews{Held: &sendingdb.Held{Table: t}},
		Contacts: &contactdb.Contacts{Table: t},
	}
}
