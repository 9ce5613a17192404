// Package eventhttp serves the events feed of /api/v1: the envelopes the
// status pipeline recorded, which webhooks carry too.
package eventhttp

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/sesame-mail/sesame/internal/event"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/routes"
)

// Handlers serves the events feed.
type Handlers struct {
	Events  *event.Service
	Cursors httpapi.Cursors
}

// Routes returns the routes served by h.
func (h Handlers) Routes() []httpapi.Route {
	return []httpapi.Route{{Route: routes.Events, Handler: h.List}}
}

// List answers GET /api/v1/events: the same envelopes webhooks carry.
func (h Handlers) List(w http.ResponseWriter, r *http.Request) error {
	ws := httpapi.PrincipalFrom(r.Context()).WorkspaceID
	binding := ws + "|events"
	return httpapi.ServeList(w, r, h.Cursors, binding, func(ctx context.Context, after string, limit int) ([][]byte, string, bool, error) {
		return h.Events.Page(ctx, ws, after, limit)
	}, func(b []byte) json.RawMessage { return b })
}
