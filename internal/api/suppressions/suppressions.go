// Package suppressions declares the functions of the do-not-send list
// routes (list-suppressions, add-suppressions, delete-suppression): each
// builds the key lookup and the suppression service over the list, and
// nothing else.
package suppressions

import (
	"log/slog"

	"github.com/sesame-mail/sesame/internal/api/wire/tablefn"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/suppressiondb"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/suppression"
	"github.com/sesame-mail/sesame/internal/suppression/suppressionhttp"
)

// The do-not-send list routes' functions; the list signs its cursors.
var (
	ListSuppressions  = tablefn.List(routes.ListSuppressions, suppressions)
	AddSuppressions   = tablefn.Read(routes.AddSuppressions, suppressions)
	DeleteSuppression = tablefn.Read(routes.DeleteSuppression, suppressions)
)

func suppressions(t *dynamo.Table, c httpapi.Cursors, _ *slog.Logger) []httpapi.Route {
	return Handlers(t, c).Routes()
}

// Handlers serves the do-not-send list routes over t.
func Handlers(t *dynamo.Table, c httpapi.Cursors) suppressionhttp.Handlers {
	return suppressionhttp.Handlers{Suppressions: &suppression.Service{Store: &suppressiondb.Suppressions{Table: t}}, Cursors: c}
}
