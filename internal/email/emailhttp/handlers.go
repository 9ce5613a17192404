// Package emailhttp serves the email read-back routes of /api/v1: list,
// get and the click list of an email.
package emailhttp

import (
	"context"
	"net/http"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/routes"
)

// Handlers serves the email read-back routes.
type Handlers struct {
	Emails  *email.Service
	Cursors httpapi.Cursors
}

// Routes returns the routes served by h.
func (h Handlers) Routes() []httpapi.Route {
	return []httpapi.Route{
		{Route: routes.ListEmails, Handler: h.List},
		{Route: routes.GetEmail, Handler: h.Get},
		{Route: routes.Clicks, Handler: h.Clicks},
	}
}

// Get answers GET /api/v1/emails/{id}.
func (h Handlers) Get(w http.ResponseWriter, r *http.Request) error {
	id, err := httpapi.PathUUID(r, "email")
	if err != nil {
		return err
	}
	e, err := h.Emails.Get(r.Context(), httpapi.PrincipalFrom(r.Context()).WorkspaceID, id)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, httpapi.Data[email.View]{Data: e.View()})
	return nil
}

// List answers GET /api/v1/emails.
func (h Handlers) List(w http.ResponseWriter, r *http.Request) error {
	f, err := parseFilter(r)
	if err != nil {
		return err
	}
	ws := httpapi.PrincipalFrom(r.Context()).WorkspaceID
	binding := ws + "|emails|" + string(f.Status) + "|" + string(f.Type) + "|" + string(f.Environment)
	if f.Tag.Name != "" {
		binding += "|tag=" + f.Tag.Key()
	}
	return httpapi.ServeList(w, r, h.Cursors, binding, func(ctx context.Context, after string, limit int) ([]email.Email, string, bool, error) {
		return h.Emails.Page(ctx, ws, f, after, limit)
	}, email.Email.View)
}

func parseFilter(r *http.Request) (email.Filter, error) {
	q := r.URL.Query()
	f := email.Filter{
		Status:      email.Status(q.Get("status")),
		Type:        email.Type(q.Get("type")),
		Environment: apikey.Environment(q.Get("environment")),
	}
	if q.Has("status") && !f.Status.Valid() {
		return email.Filter{}, fail.Invalid("status", "status must be one of sent, delivered, opened, clicked, bounced, complained, failed, suppressed, held, scheduled, cancelled")
	}
	if q.Has("type") && !f.Type.Valid() {
		return email.Filter{}, fail.Invalid("type", "type must be one of campaign, automation, transactional")
	}
	if q.Has("environment") && !f.Environment.Valid() {
		return email.Filter{}, fail.Invalid("environment", "environment must be live or test")
	}
	if q.Has("tag") {
		t, err := email.ParseTagFilter(q.Get("tag"))
		if err != nil {
			return email.Filter{}, fail.Invalid("tag", "%s", err)
		}
		f.Tag = t
	}
	return f, nil
}
