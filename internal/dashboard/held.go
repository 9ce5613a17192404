package dashboard

import (
	"context"
	"net/http"

	"github.com/sesame-mail/sesame/internal/account"
)

func (a *App) heldRoutes() []route {
	return []route{
		{pattern: "GET /held", handler: a.heldList},
		{pattern: "GET /held/{id}", handler: a.heldEmail},
		{pattern: "POST /held/{id}/clear", handler: a.clearHeld},
		{pattern: "POST /held/{id}/deny", handler: a.denyHeld},
		{pattern: "GET /preview/held/{id}", handler: a.previewHeld},
	}
}

func (a *App) heldList(w http.ResponseWriter, r *http.Request, s *session) error {
	held, err := a.svc.Owner.Held.List(r.Context(), s.WorkspaceID)
	if err != nil {
		return err
	}
	return a.render(w, s, http.StatusOK, "held.html", "Held emails", "/held", held)
}

func (a *App) heldEmail(w http.ResponseWriter, r *http.Request, s *session) error {
	shown, err := a.svc.Owner.Held.Show(r.Context(), s.WorkspaceID, r.PathValue("id"))
	if err != nil {
		return err
	}
	return a.render(w, s, http.StatusOK, "held-email.html", "Held email", "/held", shown)
}

func (a *App) clearHeld(w http.ResponseWriter, r *http.Request, s *session) error {
	return a.decideHeld(w, r, s, a.svc.Owner.Held.Clear, account.ActionHeldCleared)
}

func (a *App) denyHeld(w http.ResponseWriter, r *http.Request, s *session) error {
	return a.decideHeld(w, r, s, a.svc.Owner.Held.Deny, account.ActionHeldDenied)
}

// decideHeld clears or denies a held email; the review carries the
// verdict out within seconds, so the list may show it a moment longer.
func (a *App) decideHeld(w http.ResponseWriter, r *http.Request, s *session, decide func(ctx context.Context, ws, id string) error, action string) error {
	id := r.PathValue("id")
	if err := decide(r.Context(), s.WorkspaceID, id); err != nil {
		return err
	}
	if err := a.audit(r.Context(), s, action, id); err != nil {
		return err
	}
	http.Redirect(w, r, a.base+"/held", http.StatusSeeOther)
	return nil
}

// previewHeld serves a held email's HTML for the sandboxed frame (see
// previewRoutes).
func (a *App) previewHeld(w http.ResponseWriter, r *http.Request, s *session) error {
	shown, err := a.svc.Owner.Held.Show(r.Context(), s.WorkspaceID, r.PathValue("id"))
	if err != nil {
		return err
	}
	return servePreview(w, r, shown.HTML)
}
