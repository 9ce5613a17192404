package dashboard

import (
	"net/http"

	"github.com/sesame-mail/sesame/internal/account"
)

func (a *App) auditRoutes() []route {
	return []route{{pattern: "GET /settings/audit", handler: a.auditLog}}
}

func (a *App) auditLog(w http.ResponseWriter, r *http.Request, s *session) error {
	entries, err := a.svc.Owner.Audit.List(r.Context(), s.WorkspaceID, account.MaxAudit)
	if err != nil {
		return err
	}
	return a.render(w, s, http.StatusOK, "audit.html", "Audit log", "/settings", entries)
}
