package dashboard

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/oauth"
	"github.com/sesame-mail/sesame/internal/signin"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// connectCookie keeps an authorization request across signing in: the
// owner who opens the consent screen signed out comes back to it.
const connectCookie = "sesame_connect"

func (a *App) connectRoutes() []route {
	return []route{
		// Open: a signed-out owner is sent to sign in and brought back.
		{pattern: "GET /connect", open: true, handler: a.connect},
		{pattern: "POST /connect", picker: true, handler: a.decideConnect},
		{pattern: "GET /settings/connections", handler: a.connections},
		{pattern: "POST /settings/connections/{id}/revoke", handler: a.revokeConnection},
	}
}

// authRequest reads an authorization request from the query or the form.
func authRequest(v url.Values) oauth.AuthRequest {
	return oauth.AuthRequest{
		ClientID: v.Get("client_id"), RedirectURI: v.Get("redirect_uri"), ResponseType: v.Get("response_type"),
		Scope: v.Get("scope"), State: v.Get("state"), CodeChallenge: v.Get("code_challenge"),
		CodeChallengeMethod: v.Get("code_challenge_method"),
	}
}

type connectData struct {
	Request    oauth.Checked
	Scopes     []apikey.Scope
	Workspaces []workspace.Workspace
	Picked     string
}

// connect is the consent screen: who asks, where it sends the answer,
// what it asks for, in which workspace.
func (a *App) connect(w http.ResponseWriter, r *http.Request, _ *session) error {
	s, err := a.session(r)
	if errors.Is(err, signin.ErrNoSession) {
		http.SetCookie(w, &http.Cookie{
			Name: connectCookie, Value: r.URL.RawQuery, Path: a.base, MaxAge: int(oauth.CodeTTL.Seconds()),
			HttpOnly: true, Secure: a.secure, SameSite: http.SameSiteStrictMode,
		})
		http.Redirect(w, r, a.base+"/sign-in", http.StatusSeeOther)
		return nil
	}
	if err != nil {
		return err
	}
	req, ok := a.checkConnect(w, r, s, authRequest(r.URL.Query()))
	if !ok {
		return nil
	}
	ws, err := a.ownedWorkspaces(r, s.Address)
	if err != nil {
		return err
	}
	// The answer goes to the client's redirect URI: the form may post to
	// the dashboard only, and its redirect may lead there only.
	// (A second form-action directive would be ignored: the one is widened.)
	w.Header().Set("Content-Security-Policy", strings.Replace(pageCSP, "form-action 'self'", "form-action 'self' "+originOf(req.RedirectURI), 1))
	return a.render(w, s, http.StatusOK, "connect.html", "Connect an application", "", connectData{
		Request: req, Scopes: req.Scopes, Workspaces: ws, Picked: s.WorkspaceID,
	})
}

// checkConnect checks the request; a flaw is answered here (an error page
// when the redirect URI cannot be trusted, else a redirect to the client
// with the error) and ok is false.
func (a *App) checkConnect(w http.ResponseWriter, r *http.Request, s *session, req oauth.AuthRequest) (oauth.Checked, bool) {
	c, err := a.svc.OAuth.Check(r.Context(), req)
	var re *oauth.RedirectError
	switch {
	case err == nil:
		return c, true
	case errors.As(err, &re):
		redirectWith(w, r, req.RedirectURI, a.origin, url.Values{"error": {re.Code}, "error_description": {re.Description}, "state": {req.State}})
	case fail.KindOf(err) == fail.KindInvalid || fail.KindOf(err) == fail.KindMissing:
		a.errorPage(w, r, s, http.StatusBadRequest, "This connection cannot be made", fail.MessageOf(err))
	default:
		a.fail(w, r, s, err)
	}
	return oauth.Checked{}, false
}

func (a *App) ownedWorkspaces(r *http.Request, address string) ([]workspace.Workspace, error) {
	ids, err := a.svc.Owner.Owners.WorkspacesOf(r.Context(), address)
	if err != nil {
		return nil, err
	}
	var all []workspace.Workspace
	for _, id := range ids {
		ws, err := a.svc.Owner.Workspaces.Get(r.Context(), id)
		if errors.Is(err, workspace.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		all = append(all, ws)
	}
	return all, nil
}

// decideConnect approves or refuses: the CSRF token (checked by wrap)
// proves the owner's own dashboard page asked.
func (a *App) decideConnect(w http.ResponseWriter, r *http.Request, s *session) error {
	req, ok := a.checkConnect(w, r, s, authRequest(r.PostForm))
	if !ok {
		return nil
	}
	back := url.Values{"state": {req.State}}
	if r.PostFormValue("decision") != "approve" {
		back.Set("error", "access_denied")
		back.Set("error_description", "the owner refused the connection")
		redirectWith(w, r, req.RedirectURI, a.origin, back)
		return nil
	}
	wsID := r.PostFormValue("workspace")
	owns, err := a.svc.Owner.Owners.Owns(r.Context(), wsID, s.Address)
	if err != nil {
		return err
	}
	if wsID == "" || !owns {
		return errNotFound
	}
	code, err := a.svc.OAuth.Approve(r.Context(), req.AuthRequest, s.Address, wsID, r.PostForm["grant"])
	if fail.KindOf(err) == fail.KindInvalid {
		a.errorPage(w, r, s, http.StatusBadRequest, "Not connected", fail.MessageOf(err))
		return nil
	}
	if err != nil {
		return err
	}
	back.Set("code", code)
	redirectWith(w, r, req.RedirectURI, a.origin, back)
	return nil
}

// redirectWith answers the client at its redirect URI with params and the
// issuer (RFC 9207), keeping the URI's own query.
func redirectWith(w http.ResponseWriter, r *http.Request, redirectURI, issuer string, params url.Values) {
	u, err := url.Parse(redirectURI)
	if err != nil {
		http.Error(w, "bad redirect URI", http.StatusBadRequest)
		return
	}
	q := u.Query()
	for k, vs := range params {
		if len(vs) > 0 && vs[0] != "" {
			q.Set(k, vs[0])
		}
	}
	q.Set("iss", issuer)
	u.RawQuery = q.Encode()
	http.Redirect(w, r, u.String(), http.StatusSeeOther)
}

func originOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "'none'"
	}
	return u.Scheme + "://" + u.Host
}

type connectionsData struct {
	Grants []oauth.Grant
}

// connections lists the workspace's connections with a revoke button each.
func (a *App) connections(w http.ResponseWriter, r *http.Request, s *session) error {
	gs, err := a.svc.OAuth.Grants(r.Context(), s.WorkspaceID)
	if err != nil {
		return err
	}
	return a.render(w, s, http.StatusOK, "connections.html", "Connected applications", "/settings", connectionsData{Grants: gs})
}

func (a *App) revokeConnection(w http.ResponseWriter, r *http.Request, s *session) error {
	err := a.svc.OAuth.Revoke(r.Context(), s.WorkspaceID, r.PathValue("id"), s.Address)
	if fail.KindOf(err) == fail.KindNotFound {
		return errNotFound
	}
	if err != nil {
		return err
	}
	http.Redirect(w, r, a.base+"/settings/connections", http.StatusSeeOther)
	return nil
}

// resumeConnect is where a sign-in lands when the owner came from the
// consent screen: back to it, once.
func (a *App) resumeConnect(w http.ResponseWriter, r *http.Request) (string, bool) {
	c, err := r.Cookie(connectCookie)
	if err != nil || c.Value == "" {
		return "", false
	}
	http.SetCookie(w, &http.Cookie{Name: connectCookie, Value: "", Path: a.base, MaxAge: -1, HttpOnly: true, Secure: a.secure, SameSite: http.SameSiteStrictMode})
	q, err := url.ParseQuery(c.Value)
	if err != nil || q.Get("client_id") == "" {
		return "", false
	}
	return a.base + "/connect?" + q.Encode(), true
}
