// Package identityhttp serves the domain routes of /api/v1 over the
// identity package.
package identityhttp

import (
	"net/http"

	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/timestamp"
)

// Handlers serves the domain routes.
type Handlers struct {
	Store   identity.DomainStore
	Cursors httpapi.Cursors
}

// Routes returns the routes served by h.
func (h Handlers) Routes() []httpapi.Route {
	return []httpapi.Route{{Route: routes.Domains, Handler: h.List}}
}

// DomainView is the domain record of the API.
type DomainView struct {
	ID         string               `json:"id"`
	Name       string               `json:"name"`
	Status     string               `json:"status"`
	Records    []identity.DNSRecord `json:"records"`
	CreatedAt  string               `json:"created_at"`
	VerifiedAt *string              `json:"verified_at"`
}

// List answers GET /api/v1/domains.
func (h Handlers) List(w http.ResponseWriter, r *http.Request) error {
	ws := httpapi.PrincipalFrom(r.Context()).WorkspaceID
	binding := ws + "|domains"
	page, err := h.Cursors.ParsePage(r, binding)
	if err != nil {
		return err
	}
	domains, next, hasMore, err := h.Store.ListDomains(r.Context(), ws, page.After, page.Limit)
	if err != nil {
		return err
	}
	out := httpapi.List[DomainView]{Data: make([]DomainView, 0, len(domains)), HasMore: hasMore}
	for _, d := range domains {
		v := DomainView{ID: d.ID, Name: d.Name, Status: string(d.Status), Records: d.Records, CreatedAt: timestamp.Format(d.CreatedAt), VerifiedAt: timestamp.Optional(d.VerifiedAt)}
		if v.Records == nil {
			v.Records = []identity.DNSRecord{}
		}
		out.Data = append(out.Data, v)
	}
	out.NextCursor = h.Cursors.NextCursor(binding, next, hasMore)
	httpapi.WriteJSON(w, http.StatusOK, out)
	return nil
}
