package dashboard

import (
	"context"
	"net/http"
	"strings"

	"github.com/sesame-mail/sesame/internal/account"
	"github.com/sesame-mail/sesame/internal/event"
	"github.com/sesame-mail/sesame/internal/webhook"
)

func (a *App) webhookRoutes() []route {
	return []route{
		{pattern: "GET /settings/webhooks", handler: a.webhooks},
		{pattern: "POST /settings/webhooks", handler: a.addWebhook},
		{pattern: "GET /settings/webhooks/{id}", handler: a.webhook},
		{pattern: "POST /settings/webhooks/{id}/secret", handler: a.revealSecret},
		{pattern: "POST /settings/webhooks/{id}/enable", handler: a.enableWebhook},
		{pattern: "POST /settings/webhooks/{id}/disable", handler: a.disableWebhook},
		{pattern: "POST /settings/webhooks/{id}/remove", handler: a.removeWebhook},
	}
}

type webhooksData struct {
	Endpoints []webhook.Endpoint
	Types     []event.Type
	Error     string
}

func (a *App) webhooksPage(w http.ResponseWriter, r *http.Request, s *session, status int, d webhooksData) error {
	eps, err := a.svc.Owner.Webhooks.List(r.Context(), s.WorkspaceID)
	if err != nil {
		return err
	}
	d.Endpoints, d.Types = eps, event.Types
	return a.render(w, s, status, "webhooks.html", "Webhooks", "/settings", d)
}

func (a *App) webhooks(w http.ResponseWriter, r *http.Request, s *session) error {
	return a.webhooksPage(w, r, s, http.StatusOK, webhooksData{})
}

func (a *App) addWebhook(w http.ResponseWriter, r *http.Request, s *session) error {
	ep, err := a.svc.Owner.Webhooks.Add(r.Context(), webhook.EndpointRequest{
		WorkspaceID: s.WorkspaceID, URL: strings.TrimSpace(r.PostFormValue("url")), Events: r.PostForm["events"],
		// Only the local stack's receivers listen on http and loopback.
		AllowInsecureHTTP: !a.secure,
	})
	if err != nil {
		return refused(err, func(status int, msg string) error {
			return a.webhooksPage(w, r, s, status, webhooksData{Error: msg})
		})
	}
	if err := a.audit(r.Context(), s, account.ActionWebhookAdded, ep.ID); err != nil {
		return err
	}
	http.Redirect(w, r, a.base+"/settings/webhooks/"+ep.ID, http.StatusSeeOther)
	return nil
}

type webhookData struct {
	Endpoint webhook.Endpoint
	Attempts []webhook.Attempt
	// Secret is shown after the owner asked for it (audited).
	Secret string
}

// attemptsShown bounds the attempt log on an endpoint's page.
const attemptsShown = 100

// endpoint is the workspace's endpoint id (one read; not found for
// another workspace's), without its secret: a page shows the secret only
// when the owner asks for it.
func (a *App) endpoint(r *http.Request, s *session, id string) (webhook.Endpoint, error) {
	ep, err := a.svc.Owner.Webhooks.Endpoint(r.Context(), s.WorkspaceID, id)
	ep.Secret, ep.PreviousSecret = "", ""
	return ep, err
}

func (a *App) webhookPage(w http.ResponseWriter, r *http.Request, s *session, secret string) error {
	ctx := r.Context()
	id := r.PathValue("id")
	attempts, err := a.svc.Owner.Webhooks.Deliveries(ctx, s.WorkspaceID, id, attemptsShown)
	if err != nil {
		return err
	}
	ep, err := a.endpoint(r, s, id)
	if err != nil {
		return err
	}
	return a.render(w, s, http.StatusOK, "webhook.html", "Webhook endpoint", "/settings", webhookData{Endpoint: ep, Attempts: attempts, Secret: secret})
}

func (a *App) webhook(w http.ResponseWriter, r *http.Request, s *session) error {
	return a.webhookPage(w, r, s, "")
}

// revealSecret is a POST: showing a signing secret is an audited action.
func (a *App) revealSecret(w http.ResponseWriter, r *http.Request, s *session) error {
	id := r.PathValue("id")
	secret, err := a.svc.Owner.Webhooks.Secret(r.Context(), s.WorkspaceID, id)
	if err != nil {
		return err
	}
	if err := a.audit(r.Context(), s, account.ActionWebhookSecret, id); err != nil {
		return err
	}
	return a.webhookPage(w, r, s, secret)
}

func (a *App) enableWebhook(w http.ResponseWriter, r *http.Request, s *session) error {
	return a.setWebhook(w, r, s, true)
}

func (a *App) disableWebhook(w http.ResponseWriter, r *http.Request, s *session) error {
	return a.setWebhook(w, r, s, false)
}

func (a *App) setWebhook(w http.ResponseWriter, r *http.Request, s *session, enabled bool) error {
	id := r.PathValue("id")
	set, action := a.svc.Owner.Webhooks.Disable, account.ActionWebhookOff
	if enabled {
		set, action = a.svc.Owner.Webhooks.Enable, account.ActionWebhookEnabled
	}
	if _, err := set(r.Context(), s.WorkspaceID, id); err != nil {
		return err
	}
	if err := a.audit(r.Context(), s, action, id); err != nil {
		return err
	}
	http.Redirect(w, r, a.base+"/settings/webhooks/"+id, http.StatusSeeOther)
	return nil
}

// removeWebhook removes the endpoint after a page that names it and asks:
// its pending deliveries are dropped.
func (a *App) removeWebhook(w http.ResponseWriter, r *http.Request, s *session) error {
	id := r.PathValue("id")
	ask := func() (confirmation, error) {
		ep, err := a.endpoint(r, s, id)
		return confirmation{
			Title: "Remove a webhook endpoint", Question: "Remove the endpoint", Name: ep.URL,
			Lost:   "Its pending deliveries are dropped, no event is sent to it any more, and its signing secret and attempt log are gone.",
			Action: "/settings/webhooks/" + ep.ID + "/remove", Button: "Remove the endpoint",
			Back: "/settings/webhooks/" + ep.ID, Keep: "Keep the endpoint", nav: "/settings",
		}, err
	}
	return a.askThenDo(w, r, s, ask, account.ActionWebhookRemoved, "/settings/webhooks", func(ctx context.Context) (string, error) {
		return id, a.svc.Owner.Webhooks.Remove(ctx, s.WorkspaceID, id)
	})
}
