// Package suppressionhttp serves the do-not-send list routes of /api/v1:
// list, add (one address or up to 1,000) and remove.
package suppressionhttp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"golang.org/x/sync/errgroup"

	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/suppression"
)

// addConcurrency bounds the writes of one request in flight at once: 1,000
// addresses take about 1,000/16 round trips.
const addConcurrency = 16

// Handlers serves the do-not-send list routes.
type Handlers struct {
	Store   suppression.Store
	Cursors httpapi.Cursors
}

// Routes returns the routes served by h.
func (h Handlers) Routes() []httpapi.Route {
	return []httpapi.Route{
		{Route: routes.ListSuppressions, Handler: h.List},
		{Route: routes.AddSuppressions, Handler: h.Add},
		{Route: routes.DeleteSuppression, Handler: h.Delete},
	}
}

// List answers GET /api/v1/suppressions.
func (h Handlers) List(w http.ResponseWriter, r *http.Request) error {
	f, err := parseFilter(r)
	if err != nil {
		return err
	}
	ws := httpapi.PrincipalFrom(r.Context()).WorkspaceID
	binding := ws + "|suppressions|" + f.Email + "|" + string(f.Reason)
	return httpapi.ServeList(w, r, h.Cursors, binding, func(ctx context.Context, after string, limit int) ([]suppression.Suppression, string, bool, error) {
		return h.Store.ListSuppressions(ctx, ws, f, after, limit)
	}, suppression.Suppression.View)
}

func parseFilter(r *http.Request) (suppression.Filter, error) {
	q := r.URL.Query()
	var f suppression.Filter
	if q.Has("email") {
		addr, err := suppression.ParseEmail(q.Get("email"))
		if err != nil {
			return f, fail.Invalid("email", "email is not a valid address: %v", err)
		}
		f.Email = addr
	}
	if q.Has("reason") {
		f.Reason = suppression.Reason(q.Get("reason"))
		if !f.Reason.Valid() {
			return f, fail.Invalid("reason", "%v", suppression.ErrBadReason)
		}
	}
	return f, nil
}

// AddRequest is the body of POST /api/v1/suppressions: one address
// (email) or a list of them (emails), and the reason of every one.
type AddRequest struct {
	Email  *string           `json:"email"`
	Emails []json.RawMessage `json:"emails"`
	Reason string            `json:"reason"`
}

// AddItem is the outcome of one address of emails: the entry as stored
// and whether this request added it, or the error it would have had on
// its own, with param emails[i].
type AddItem struct {
	Index int `json:"index"`
	*suppression.View
	Created *bool              `json:"created,omitempty"`
	Error   *httpapi.ItemError `json:"error,omitempty"`
}

// Add answers POST /api/v1/suppressions. Adding is idempotent: an address
// already listed keeps its entry (reason, email and time of the first
// time). One address answers 201 with the entry when added, 200 with the
// existing entry otherwise; a list answers 200 with an outcome per address.
func (h Handlers) Add(w http.ResponseWriter, r *http.Request) error {
	var req AddRequest
	if err := httpapi.DecodeJSON(r, &req); err != nil {
		return err
	}
	reason, err := suppression.ParseReason(req.Reason)
	if err != nil {
		return fail.Invalid("reason", "%v", err)
	}
	switch {
	case req.Email != nil && req.Emails != nil:
		return fail.Invalid("emails", "give email or emails, not both")
	case req.Emails != nil:
		return h.addMany(w, r, req.Emails, reason)
	case req.Email == nil:
		return fail.Missing("email")
	}
	addr, err := suppression.ParseEmail(*req.Email)
	if err != nil {
		return fail.Invalid("email", "email is not a valid address: %v", err)
	}
	s, created, err := h.Store.PutSuppression(r.Context(), httpapi.PrincipalFrom(r.Context()).WorkspaceID, suppression.Suppression{Email: addr, Reason: reason})
	if err != nil {
		return err
	}
	code := http.StatusOK
	if created {
		code = http.StatusCreated
	}
	httpapi.WriteJSON(w, code, httpapi.Data[suppression.View]{Data: s.View()})
	return nil
}

// addMany adds every valid address of emails independently, a bounded
// number at once; an invalid one is its item's error and stops nothing.
func (h Handlers) addMany(w http.ResponseWriter, r *http.Request, emails []json.RawMessage, reason suppression.Reason) error {
	switch {
	case len(emails) == 0:
		return fail.Invalid("emails", "emails must hold at least one address")
	case len(emails) > suppression.MaxBatch:
		return fail.Invalid("emails", "emails takes at most %d addresses per request", suppression.MaxBatch)
	}
	ws := httpapi.PrincipalFrom(r.Context()).WorkspaceID
	items := make([]AddItem, len(emails))
	g, ctx := errgroup.WithContext(r.Context())
	g.SetLimit(addConcurrency)
	for i, raw := range emails {
		items[i].Index = i
		g.Go(func() error {
			item := "emails[" + strconv.Itoa(i) + "]"
			s, created, err := h.addOne(ctx, ws, raw, reason, item)
			if err == nil {
				v := s.View()
				items[i].View, items[i].Created = &v, &created
				return nil
			}
			if fail.KindOf(err) != fail.KindInvalid {
				// A store fault fails the request: adding is idempotent, so
				// the client sends it again whole.
				return err
			}
			problem, _ := httpapi.ProblemOf(err)
			items[i].Error = httpapi.NewItemError(problem, item)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, httpapi.Data[[]AddItem]{Data: items})
	return nil
}

// addOne reads one item of emails (a string holding an address, named
// item in messages) and adds it. A refusal names the item as a whole
// (param "body", which httpapi.NewItemError scopes to the item).
func (h Handlers) addOne(ctx context.Context, ws string, raw json.RawMessage, reason suppression.Reason, item string) (suppression.Suppression, bool, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return suppression.Suppression{}, false, fail.Invalid("body", "%s must be a string holding an address", item)
	}
	addr, err := suppression.ParseEmail(s)
	if err != nil {
		return suppression.Suppression{}, false, fail.Invalid("body", "%s is not a valid address: %v", item, err)
	}
	return h.Store.PutSuppression(ctx, ws, suppression.Suppression{Email: addr, Reason: reason})
}

// Delete answers DELETE /api/v1/suppressions/{email} (the address
// URL-encoded) with the entry it removed; an address not on the list,
// whatever it is, is 404 not_found.
func (h Handlers) Delete(w http.ResponseWriter, r *http.Request) error {
	s, err := h.Store.DeleteSuppression(r.Context(), httpapi.PrincipalFrom(r.Context()).WorkspaceID, r.PathValue("email"))
	if errors.Is(err, suppression.ErrNotFound) {
		return fail.NotFound("address on the do-not-send list")
	}
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, httpapi.Data[suppression.View]{Data: s.View()})
	return nil
}
