// Package deliverability declares the function of the deliverability
// check (check-deliverability): it builds the DynamoDB client for the key
// lookup and the workspace's record (its brands), and links no other
// repository.
package deliverability

import (
	"log/slog"

	"github.com/sesame-mail/sesame/internal/api/wire/tablefn"
	check "github.com/sesame-mail/sesame/internal/deliverability"
	"github.com/sesame-mail/sesame/internal/deliverability/deliverabilityhttp"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/workspacedb"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/routes"
)

// CheckDeliverability serves POST /api/v1/deliverability/check.
var CheckDeliverability = tablefn.Read(routes.CheckDeliverability, handlers)

// handlers is the check's handler; the table serves the key lookup
// and the workspace's brands.
func handlers(t *dynamo.Table, _ httpapi.Cursors, _ *slog.Logger) []httpapi.Route {
	return deliverabilityhttp.Handlers{Checks: &check.Service{Workspaces: &workspacedb.Workspaces{Table: t}}}.Routes()
}
