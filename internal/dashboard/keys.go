package dashboard

import (
	"context"
	"net/http"
	"slices"
	"strings"

	"github.com/sesame-mail/sesame/internal/account"
	"github.com/sesame-mail/sesame/internal/apikey"
)

func (a *App) keyRoutes() []route {
	return []route{
		{pattern: "GET /settings/keys", handler: a.keys},
		{pattern: "POST /settings/keys", handler: a.createKey},
		{pattern: "POST /settings/keys/{id}/regenerate", handler: a.regenerateKey},
		{pattern: "POST /settings/keys/{id}/revoke", handler: a.revokeKey},
	}
}

// scopeChoice is a scope of the custom preset's form.
type scopeChoice struct {
	Scope      apikey.Scope
	Deliberate bool
	Ticked     bool
}

// keyForm is the create form as the owner filled it, shown again when it
// is refused.
type keyForm struct {
	Name, Env, Preset string
	Scopes            []string
}

type keysData struct {
	Keys   []apikey.Key
	Scopes []scopeChoice
	// Created is the key just created or regenerated, shown this once.
	Created *apikey.CreatedKey
	// Error says why the form was refused, and Form is what it held.
	Error string
	Form  keyForm
}

func (a *App) keysPage(w http.ResponseWriter, r *http.Request, s *session, status int, d keysData) error {
	keys, err := a.svc.Owner.Keys.List(r.Context(), s.WorkspaceID)
	if err != nil {
		return err
	}
	d.Keys = keys
	if d.Form.Env == "" {
		d.Form.Env, d.Form.Preset = string(apikey.Live), string(apikey.PresetFull)
	}
	for _, sc := range apikey.AllScopes {
		d.Scopes = append(d.Scopes, scopeChoice{Scope: sc, Deliberate: sc.Deliberate(), Ticked: slices.Contains(d.Form.Scopes, string(sc))})
	}
	return a.render(w, s, status, "keys.html", "API keys", "/settings", d)
}

func (a *App) keys(w http.ResponseWriter, r *http.Request, s *session) error {
	return a.keysPage(w, r, s, http.StatusOK, keysData{})
}

// createKey creates a key as the form says: the ticked scopes go to the
// owner service whatever the preset, so scopes ticked with a fixed preset
// are refused there rather than dropped. A refused form comes back as
// filled.
func (a *App) createKey(w http.ResponseWriter, r *http.Request, s *session) error {
	form := keyForm{Name: r.PostFormValue("name"), Env: r.PostFormValue("env"), Preset: r.PostFormValue("preset"), Scopes: r.PostForm["scopes"]}
	req := apikey.KeyRequest{
		WorkspaceID: s.WorkspaceID, Environment: apikey.Environment(form.Env),
		Preset: apikey.Preset(form.Preset), Name: form.Name, Scopes: form.Scopes,
	}
	deliberate := slices.ContainsFunc(req.Scopes, func(sc string) bool { return apikey.Scope(sc).Deliberate() })
	if deliberate && r.PostFormValue("confirm-deliberate") != "yes" {
		return a.keysPage(w, r, s, http.StatusBadRequest, keysData{Form: form,
			Error: "email:send_bulk and segments:write are granted only on purpose: tick the confirmation to grant them."})
	}
	created, err := a.svc.Owner.Keys.Create(r.Context(), req)
	if msg, ok := refusal(err); ok {
		return a.keysPage(w, r, s, http.StatusBadRequest, keysData{Form: form, Error: msg})
	}
	if err != nil {
		return err
	}
	if err := a.audit(r.Context(), s, account.ActionKeyCreated, created.Record.ID); err != nil {
		return err
	}
	return a.keysPage(w, r, s, http.StatusOK, keysData{Created: &created})
}

// askKey builds the page that asks before the key of the path is
// revoked or regenerated: either breaks whatever uses the key now. A key
// the workspace has not, or a revoked one, is not found.
func (a *App) askKey(r *http.Request, s *session, action string) func() (confirmation, error) {
	return func() (confirmation, error) {
		keys, err := a.svc.Owner.Keys.List(r.Context(), s.WorkspaceID)
		if err != nil {
			return confirmation{}, err
		}
		i := slices.IndexFunc(keys, func(k apikey.Key) bool { return strings.EqualFold(k.ID, r.PathValue("id")) && k.RevokedAt == nil })
		if i < 0 {
			return confirmation{}, errNotFound
		}
		k := keys[i]
		c := confirmation{
			Title: "Revoke a key", Question: "Revoke the key", Name: k.Name, Code: k.Hint, Note: string(k.Environment),
			Lost:   "Every request with it is refused from now on, and a revoked key cannot be restored.",
			Action: "/settings/keys/" + k.ID + "/" + action, Button: "Revoke the key",
			Back: "/settings/keys", Keep: "Keep the key as it is", nav: "/settings",
		}
		if action == "regenerate" {
			c.Title, c.Question, c.Button = "Regenerate a key", "Regenerate the key", "Regenerate the key"
			c.Lost = "The key in use stops working at once; the new one, with the same scopes, is shown once."
		}
		return c, nil
	}
}

func (a *App) regenerateKey(w http.ResponseWriter, r *http.Request, s *session) error {
	if ok, err := a.confirmed(w, r, s, a.askKey(r, s, "regenerate")); !ok {
		return err
	}
	created, err := a.svc.Owner.Keys.Regenerate(r.Context(), s.WorkspaceID, r.PathValue("id"))
	if err != nil {
		return err
	}
	if err := a.audit(r.Context(), s, account.ActionKeyRegenerated, created.Record.ID); err != nil {
		return err
	}
	return a.keysPage(w, r, s, http.StatusOK, keysData{Created: &created})
}

func (a *App) revokeKey(w http.ResponseWriter, r *http.Request, s *session) error {
	id := r.PathValue("id")
	return a.askThenDo(w, r, s, a.askKey(r, s, "revoke"), account.ActionKeyRevoked, "/settings/keys", func(ctx context.Context) (string, error) {
		return id, a.svc.Owner.Keys.Revoke(ctx, s.WorkspaceID, id)
	})
}
