// Package eventhttp serves the events feed of /api/v1: the envelopes the
// status pipeline recorded, which webhooks carry too.
package eventhttp

import (
	"encoding/json"
	"net/http"

	"github.com/sesame-mail/sesame/internal/event"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/routes"
)

// Handlers serves the events feed.
type Handlers struct {
	Store   event.Store
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
	page, err := h.Cursors.ParsePage(r, binding)
	if err != nil {
		return err
	}
	bodies, next, hasMore, err := h.Store.ListEvents(r.Context(), ws, page.After, page.Limit)
	if err != nil {
		return err
	}
	out := httpapi.List[json.RawMessage]{Data: make([]json.RawMessage, 0, len(bodies)), HasMore: hasMore}
	for _, b := range bodies {
		out.Data = append(out.Data, json.RawMessage(b))
	}
	out.NextCursor = h.Cursors.NextCursor(binding, next, hasMore)
	httpapi.WriteJSON(w, http.StatusOK, out)
	return nil
}
