package dashboard

import (
	"net/http"

	"github.com/sesame-mail/sesame/internal/account"
)

func (a *App) rotateRoutes() []route {
	return []route{{pattern: "POST /settings/webhooks/{id}/rotate", handler: a.rotateSecret}}
}

// rotateSecret gives the endpoint a new signing secret, shown once here
// (audited); the old one signs beside it for 24 hours, as the page says.
func (a *App) rotateSecret(w http.ResponseWriter, r *http.Request, s *session) error {
	id := r.PathValue("id")
	secret, err := a.svc.Owner.Webhooks.RotateSecret(r.Context(), s.WorkspaceID, id)
	if err != nil {
		return err
	}
	if err := a.audit(r.Context(), s, account.ActionWebhookRotated, id); err != nil {
		return err
	}
	return a.webhookPage(w, r, s, secret)
}
