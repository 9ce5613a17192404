// Package identityhttp serves the domain routes of /api/v1 over the
// identity package.
package identityhttp

import (
	"context"
	"net/http"

	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/timestamp"
)

// Handlers serves the domain routes.
type Handlers struct {
	Domains *identity.Domains
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
	return httpapi.ServeList(w, r, h.Cursors, binding, func(ctx context.Context, after string, limit int) ([]identity.Domain, string, bool, error) {
		return h.Domains.Page(ctx, ws, after, limit)
	}, view)
}

// view is d as the API shows it: records is an array, never null.
func view(d identity.Domain) DomainView {
	v := DomainView{ID: d.ID, Name: d.Name, Status: string(d.Status), Records: d.Records, CreatedAt: timestamp.Format(d.CreatedAt), VerifiedAt: timestamp.Optional(d.VerifiedAt)}
	if v.Records == nil {
		v.Records = []identity.DNSRecord{}
	}
	return v
}
