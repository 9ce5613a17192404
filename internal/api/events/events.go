// Package events declares the function of the events feed (list-events):
// the key lookup and the event service over the events repository.
package events

import (
	"log/slog"

	"github.com/sesame-mail/sesame/internal/api/wire/tablefn"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/eventdb"
	"github.com/sesame-mail/sesame/internal/event"
	"github.com/sesame-mail/sesame/internal/event/eventhttp"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/routes"
)

// Events serves GET /api/v1/events.
var Events = tablefn.List(routes.Events, func(t *dynamo.Table, c httpapi.Cursors, _ *slog.Logger) []httpapi.Route {
	return Handlers(t, c).Routes()
})

// Handlers serves the events feed over t.
func Handlers(t *dynamo.Table, c httpapi.Cursors) eventhttp.Handlers {
	return eventhttp.Handlers{Events: &event.Service{Store: &eventdb.Events{Table: t}}, Cursors: c}
}
