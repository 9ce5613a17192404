// Package checks declares the function of the deliverability check: it
// reads nothing of a workspace, so it builds the DynamoDB client for the
// key lookup alone, and links no repository besides the keys'.
package checks

import (
	"log/slog"

	"github.com/sesame-mail/sesame/internal/api/tableroutes"
	"github.com/sesame-mail/sesame/internal/deliverability/deliverabilityhttp"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/routes"
)

// CheckDeliverability serves POST /api/v1/deliverability/check.
var CheckDeliverability = tableroutes.Read(routes.CheckDeliverability, deliverability)

// deliverability is the check's handler; the table serves the key lookup
// only.
func deliverability(*dynamo.Table, httpapi.Cursors, *slog.Logger) []httpapi.Route {
	return deliverabilityhttp.Handlers{}.Routes()
}
