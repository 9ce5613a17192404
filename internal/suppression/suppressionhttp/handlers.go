// Package suppressionhttp serves the do-not-send list routes of /api/v1:
// list, add (one address or up to 1,000) and remove.
package suppressionhttp

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/suppression"
)

// Handlers serves the do-not-send list routes.
type Handlers struct {
	Suppressions *suppression.Service
	Cursors      httpapi.Cursors
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
		return h.Suppressions.Page(ctx, ws, f, after, limit)
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
	s, created, err := h.Suppressions.Put(r.Context(), httpapi.PrincipalFrom(r.Context()).WorkspaceID, suppression.Suppression{Email: addr, Reason: reason})
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

// addMany adds every valid address of emails independently; an invalid
// one is its item's error and stops nothing.
func (h Handlers) addMany(w http.ResponseWriter, r *http.Request, emails []json.RawMessage, reason suppression.Reason) error {
	if err := suppression.CheckBatch(len(emails)); err != nil {
		return err
	}
	items := make([]AddItem, len(emails))
	var addresses []string
	var at []int // the index in emails of each of addresses
	for i, raw := range emails {
		items[i].Index = i
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			items[i].Error = itemError(i, fail.Invalid("body", "%s must be a string holding an address", item(i)))
			continue
		}
		addresses, at = append(addresses, s), append(at, i)
	}
	if len(addresses) > 0 {
		added, err := h.Suppressions.PutMany(r.Context(), httpapi.PrincipalFrom(r.Context()).WorkspaceID, addresses, reason)
		if err != nil {
			return err
		}
		for j, a := range added {
			i := at[j]
			if a.Err != nil {
				items[i].Error = itemError(i, fail.Invalid("body", "%s is not a valid address: %v", item(i), a.Err))
				continue
			}
			v, created := a.Suppression.View(), a.Created
			items[i].View, items[i].Created = &v, &created
		}
	}
	httpapi.WriteJSON(w, http.StatusOK, httpapi.Data[[]AddItem]{Data: items})
	return nil
}

// item names the i-th address of emails in messages.
func item(i int) string { return "emails[" + strconv.Itoa(i) + "]" }

// itemError is the error of item i, refused as a whole (param "body",
// which httpapi.NewItemError scopes to the item).
func itemError(i int, err *fail.Error) *httpapi.ItemError {
	problem, _ := httpapi.ProblemOf(err)
	return httpapi.NewItemError(problem, item(i))
}

// Delete answers DELETE /api/v1/suppressions/{email} (the address
// URL-encoded) with the entry it removed; an address not on the list,
// whatever it is, is 404 not_found.
func (h Handlers) Delete(w http.ResponseWriter, r *http.Request) error {
	s, err := h.Suppressions.Delete(r.Context(), httpapi.PrincipalFrom(r.Context()).WorkspaceID, r.PathValue("email"))
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, httpapi.Data[suppression.View]{Data: s.View()})
	return nil
}
