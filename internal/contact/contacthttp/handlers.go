// Package contacthttp serves the contact routes of /api/v1: create, list,
// get, update and delete.
package contacthttp

import (
	"context"
	"net/http"
	"strconv"

	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/routes"
)

// Handlers serves the contact routes.
type Handlers struct {
	Service *contact.Service
	Cursors httpapi.Cursors
}

// Routes returns the routes served by h.
func (h Handlers) Routes() []httpapi.Route {
	return []httpapi.Route{
		{Route: routes.CreateContact, Handler: h.Create},
		{Route: routes.ListContacts, Handler: h.List},
		{Route: routes.GetContact, Handler: h.Get},
		{Route: routes.UpdateContact, Handler: h.Update},
		{Route: routes.DeleteContact, Handler: h.Delete},
	}
}

func workspace(r *http.Request) string { return httpapi.PrincipalFrom(r.Context()).WorkspaceID }

// Create answers POST /api/v1/contacts.
func (h Handlers) Create(w http.ResponseWriter, r *http.Request) error {
	p, err := decodePatch(r)
	if err != nil {
		return err
	}
	c, err := h.Service.Create(r.Context(), workspace(r), p)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusCreated, httpapi.Data[contact.View]{Data: c.View()})
	return nil
}

// Get answers GET /api/v1/contacts/{id}.
func (h Handlers) Get(w http.ResponseWriter, r *http.Request) error {
	id, err := httpapi.PathUUID(r, "contact")
	if err != nil {
		return err
	}
	c, err := h.Service.Get(r.Context(), workspace(r), id)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, httpapi.Data[contact.View]{Data: c.View()})
	return nil
}

// Update answers PATCH /api/v1/contacts/{id}.
func (h Handlers) Update(w http.ResponseWriter, r *http.Request) error {
	id, err := httpapi.PathUUID(r, "contact")
	if err != nil {
		return err
	}
	p, err := decodePatch(r)
	if err != nil {
		return err
	}
	c, err := h.Service.Update(r.Context(), workspace(r), id, p)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, httpapi.Data[contact.View]{Data: c.View()})
	return nil
}

// Delete answers DELETE /api/v1/contacts/{id}.
func (h Handlers) Delete(w http.ResponseWriter, r *http.Request) error {
	id, err := httpapi.PathUUID(r, "contact")
	if err != nil {
		return err
	}
	if err := h.Service.Delete(r.Context(), workspace(r), id); err != nil {
		return err
	}
	httpapi.WriteDeleted(w, id)
	return nil
}

// List answers GET /api/v1/contacts.
func (h Handlers) List(w http.ResponseWriter, r *http.Request) error {
	f, err := parseFilter(r)
	if err != nil {
		return err
	}
	ws := workspace(r)
	subscribed := ""
	if f.Subscribed != nil {
		subscribed = strconv.FormatBool(*f.Subscribed)
	}
	binding := ws + "|contacts|" + f.Email + "|" + subscribed + "|" + f.Tag
	return httpapi.ServeList(w, r, h.Cursors, binding, func(ctx context.Context, after string, limit int) ([]contact.Contact, string, bool, error) {
		return h.Service.Page(ctx, ws, f, after, limit)
	}, contact.Contact.View)
}

func parseFilter(r *http.Request) (contact.Filter, error) {
	q := r.URL.Query()
	var f contact.Filter
	if q.Has("email") {
		e, err := contact.CheckEmail(q.Get("email"))
		if err != nil {
			return contact.Filter{}, err
		}
		f.Email = e
	}
	if q.Has("subscribed") {
		var b bool
		switch q.Get("subscribed") {
		case "true":
			b = true
		case "false":
		default:
			return contact.Filter{}, fail.Invalid("subscribed", "subscribed must be true or false")
		}
		f.Subscribed = &b
	}
	if q.Has("tag") {
		if !contact.ValidTag(q.Get("tag")) {
			return contact.Filter{}, fail.Invalid("tag", "a tag is 1 to %d characters of a-z, 0-9, _ and -", contact.MaxTag)
		}
		f.Tag = q.Get("tag")
	}
	return f, nil
}
