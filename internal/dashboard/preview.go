package dashboard

import (
	"net/http"
)

// previewRoutes serve email HTML on URLs of their own, framed by the
// dashboard's pages in <iframe sandbox> and sent with the sandbox CSP
// (previewCSP): the HTML is never part of a dashboard page, and nothing
// in it runs.
func (a *App) previewRoutes() []route {
	return []route{{pattern: "GET /preview/campaigns/{id}", handler: a.previewCampaign}}
}

func (a *App) previewCampaign(w http.ResponseWriter, r *http.Request, s *session) error {
	c, err := a.svc.Owner.Approvals.Show(r.Context(), s.WorkspaceID, r.PathValue("id"), 0)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, err = w.Write([]byte(c.HTML))
	return err
}
