package dashboard

import (
	"net/http"
)

func (a *App) domainRoutes() []route {
	return []route{{pattern: "GET /settings/domains", handler: a.domains}}
}

// domains shows each domain with the DNS records to publish and its
// verification as last read from SES. Adding a domain and reading SES
// again stay the console's (sesame domains add / status): the dashboard
// function has no SES identity permissions.
func (a *App) domains(w http.ResponseWriter, r *http.Request, s *session) error {
	list, err := a.svc.Owner.Domains.List(r.Context(), s.WorkspaceID)
	if err != nil {
		return err
	}
	return a.render(w, s, http.StatusOK, "domains.html", "Domains", "/settings", list)
}
