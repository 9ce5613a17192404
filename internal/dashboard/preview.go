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
	return servePreview(w, r, c.HTML)
}

// previewImagesParam, set to 1 on a preview URL, loads the email's remote
// images: the owner's choice, made with the link the "preview" template
// puts beside every frame.
const previewImagesParam = "images"

// previewCSP is the policy of a preview: sandboxed, no script, nothing
// fetched but inline styles and data: images, so a tracking pixel does
// not fire when the owner merely looks; with images, remote images load
// too (http as well as https: a local stack serves them over http, and a
// browser upgrades them on an https dashboard).
func previewCSP(images bool) string {
	img := "data: cid:"
	if images {
		img = "https: http: data: cid:"
	}
	return "sandbox; default-src 'none'; img-src " + img + "; style-src 'unsafe-inline'; frame-ancestors 'self'"
}

// servePreview writes email HTML for a sandboxed frame, with remote
// images blocked unless the request asks for them. Every preview route
// answers through it.
func servePreview(w http.ResponseWriter, r *http.Request, html string) error {
	h := w.Header()
	h.Set("Content-Security-Policy", previewCSP(r.URL.Query().Get(previewImagesParam) == "1"))
	h.Set("Content-Type", "text/html; charset=utf-8")
	_, err := w.Write([]byte(html))
	return err
}
