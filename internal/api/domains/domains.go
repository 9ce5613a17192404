// Package domains declares the function of the domain list
// (list-domains): the key lookup and the domain service over the domains
// repository; the list reaches no SES identity.
package domains

import (
	"log/slog"

	"github.com/sesame-mail/sesame/internal/api/wire/tablefn"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/workspacedb"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/identity/identityhttp"
	"github.com/sesame-mail/sesame/internal/routes"
)

// Domains serves GET /api/v1/domains.
var Domains = tablefn.List(routes.Domains, func(t *dynamo.Table, c httpapi.Cursors, _ *slog.Logger) []httpapi.Route {
	return Handlers(t, c).Routes()
})

// Handlers serves the domain list over t.
func Handlers(t *dynamo.Table, c httpapi.Cursors) identityhttp.Handlers {
	return identityhttp.Handlers{Domains: &identity.Domains{Store: &workspacedb.Domains{Table: t}}, Cursors: c}
}
