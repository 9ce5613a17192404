// Package templatehttp serves the stored template routes of /api/v1:
// create, list, get (any version), update and delete.
package templatehttp

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/sesame-mail/sesame/internal/emailtemplate"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/routes"
)

// Handlers serves the template routes.
type Handlers struct {
	Service *emailtemplate.Service
	Cursors httpapi.Cursors
}

// Routes returns the routes served by h.
func (h Handlers) Routes() []httpapi.Route {
	return []httpapi.Route{
		{Route: routes.CreateTemplate, Handler: h.Create},
		{Route: routes.ListTemplates, Handler: h.List},
		{Route: routes.GetTemplate, Handler: h.Get},
		{Route: routes.UpdateTemplate, Handler: h.Update},
		{Route: routes.DeleteTemplate, Handler: h.Delete},
	}
}

// View is a template version as the API shows it.
type View struct {
	Object    string                `json:"object"`
	ID        string                `json:"id"`
	Name      string                `json:"name"`
	Subject   string                `json:"subject"`
	HTML      string                `json:"html,omitempty"`
	Version   int                   `json:"version"`
	Variables []string              `json:"variables"`
	Review    *emailtemplate.Review `json:"review,omitempty"`
	CreatedAt time.Time             `json:"created_at"`
	UpdatedAt time.Time             `json:"updated_at"`
}

func viewOf(t emailtemplate.Template) View {
	return View{
		Object: "template", ID: t.ID, Name: t.Name, Subject: t.Subject, HTML: t.HTML, Version: t.Version,
		Variables: t.Variables(), CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt,
	}
}

func versionView(v emailtemplate.Version) View {
	out := viewOf(v.Template)
	out.Review = &v.Review
	return out
}

// summary is a template in a list: its html and review are on GET.
func summary(t emailtemplate.Template) View {
	out := viewOf(t)
	out.HTML = ""
	return out
}

func workspace(r *http.Request) string { return httpapi.PrincipalFrom(r.Context()).WorkspaceID }

// Create answers POST /api/v1/templates.
func (h Handlers) Create(w http.ResponseWriter, r *http.Request) error {
	var in emailtemplate.Input
	if err := httpapi.DecodeJSON(r, &in); err != nil {
		return err
	}
	v, err := h.Service.Create(r.Context(), workspace(r), in)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusCreated, httpapi.Data[View]{Data: versionView(v)})
	return nil
}

// Get answers GET /api/v1/templates/{id}[?version=N].
func (h Handlers) Get(w http.ResponseWriter, r *http.Request) error {
	id, err := httpapi.PathUUID(r, "template")
	if err != nil {
		return err
	}
	version := 0
	if q := r.URL.Query(); q.Has("version") {
		n, err := strconv.Atoi(q.Get("version"))
		if err != nil || n < 1 || n > 999_999 {
			return fail.Invalid("version", "version must be a version number, from 1")
		}
		version = n
	}
	v, err := h.Service.Get(r.Context(), workspace(r), id, version)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, httpapi.Data[View]{Data: versionView(v)})
	return nil
}

// Update answers PATCH /api/v1/templates/{id}.
func (h Handlers) Update(w http.ResponseWriter, r *http.Request) error {
	id, err := httpapi.PathUUID(r, "template")
	if err != nil {
		return err
	}
	var in emailtemplate.Input
	if err := httpapi.DecodeJSON(r, &in); err != nil {
		return err
	}
	v, err := h.Service.Update(r.Context(), workspace(r), id, in)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, httpapi.Data[View]{Data: versionView(v)})
	return nil
}

// Delete answers DELETE /api/v1/templates/{id}.
func (h Handlers) Delete(w http.ResponseWriter, r *http.Request) error {
	id, err := httpapi.PathUUID(r, "template")
	if err != nil {
		return err
	}
	if err := h.Service.Delete(r.Context(), workspace(r), id); err != nil {
		return err
	}
	httpapi.WriteDeleted(w, id)
	return nil
}

// List answers GET /api/v1/templates: the latest version of each, newest
// template first.
func (h Handlers) List(w http.ResponseWriter, r *http.Request) error {
	ws := workspace(r)
	return httpapi.ServeList(w, r, h.Cursors, ws+"|templates", func(ctx context.Context, after string, limit int) ([]emailtemplate.Template, string, bool, error) {
		return h.Service.List(ctx, ws, after, limit)
	}, summary)
}
