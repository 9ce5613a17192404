// Package segmenthttp serves POST /api/v1/segments over the segment
// service.
package segmenthttp

import (
	"encoding/json"
	"net/http"

	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/segment"
)

// Handlers serves the segment route.
type Handlers struct {
	Service *segment.Service
}

// Routes returns the routes served by h.
func (h Handlers) Routes() []httpapi.Route {
	return []httpapi.Route{{Route: routes.CreateSegment, Handler: h.Create}}
}

// createBody is the body of POST /api/v1/segments; the filter is read by
// segment.Parse, which names the path of what it refuses.
type createBody struct {
	Name   *string         `json:"name"`
	Filter json.RawMessage `json:"filter"`
}

// Create answers POST /api/v1/segments: 201 with the segment and how
// many recipients it has now.
func (h Handlers) Create(w http.ResponseWriter, r *http.Request) error {
	var body createBody
	if err := httpapi.DecodeJSON(r, &body); err != nil {
		return err
	}
	ws := httpapi.PrincipalFrom(r.Context()).WorkspaceID
	seg, err := h.Service.Create(r.Context(), ws, segment.NewSegment{Name: body.Name, Filter: body.Filter})
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusCreated, httpapi.Data[segment.View]{Data: seg.View()})
	return nil
}
