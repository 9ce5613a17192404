// Package automationhttp serves the automation route of /api/v1:
// POST /automations/events, through which the team's backend reports an
// event that starts runs. Definitions are the owner's (internal/owner),
// never reachable with an API key.
package automationhttp

import (
	"encoding/json"
	"net/http"

	"github.com/sesame-mail/sesame/internal/automation"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/routes"
)

// Handlers serves the automation route.
type Handlers struct {
	Trigger *automation.Trigger
}

// Routes returns the routes served by h.
func (h Handlers) Routes() []httpapi.Route {
	return []httpapi.Route{{Route: routes.AutomationEvents, Handler: h.Events}}
}

// body is the request of POST /automations/events; pointers tell an
// absent field from an empty one.
type body struct {
	Event    *string                `json:"event"`
	EventKey *string                `json:"event_key"`
	Contact  *automation.ContactRef `json:"contact"`
	Payload  json.RawMessage        `json:"payload"`
}

// Events answers POST /api/v1/automations/events.
func (h Handlers) Events(w http.ResponseWriter, r *http.Request) error {
	var b body
	if err := httpapi.DecodeJSON(r, &b); err != nil {
		return err
	}
	ev, err := automation.CheckEvent(automation.EventInput{Name: b.Event, Key: b.EventKey, Contact: b.Contact, Payload: b.Payload})
	if err != nil {
		return err
	}
	p := httpapi.PrincipalFrom(r.Context())
	res, err := h.Trigger.Report(r.Context(), p.WorkspaceID, p.Environment, ev)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, httpapi.Data[automation.EventResult]{Data: res})
	return nil
}
