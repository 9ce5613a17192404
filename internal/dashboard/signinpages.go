package dashboard

import (
	"errors"
	"log/slog"
	"net"
	"net/http"

	"github.com/sesame-mail/sesame/internal/account"
	"github.com/sesame-mail/sesame/internal/signin"
	"github.com/sesame-mail/sesame/internal/workspace"
)

func (a *App) signInRoutes() []route {
	return []route{
		{pattern: "GET /sign-in", open: true, handler: a.signInForm},
		{pattern: "POST /sign-in", open: true, handler: a.requestLink},
		// GET only shows a button: mail scanners fetch links, and a GET
		// that consumed the link would burn it before the owner clicks.
		{pattern: "GET /sign-in/{token}", open: true, handler: a.confirmLink},
		{pattern: "POST /sign-in/{token}", open: true, handler: a.useLink},
		{pattern: "POST /sign-out", picker: true, handler: a.signOut},
		{pattern: "GET /workspaces", picker: true, handler: a.workspaces},
		{pattern: "POST /workspaces", picker: true, handler: a.pickWorkspace},
	}
}

func (a *App) signInForm(w http.ResponseWriter, _ *http.Request, _ *session) error {
	return a.render(w, nil, http.StatusOK, "signin.html", "Sign in", "", nil)
}

// requestLink answers every address the same way, owner or not; only a
// rate limit answers otherwise, before anything is looked up.
func (a *App) requestLink(w http.ResponseWriter, r *http.Request, _ *session) error {
	outcome, link, err := a.svc.SignIn.RequestLink(r.Context(), r.PostFormValue("email"), clientIP(r))
	if err != nil {
		return err
	}
	if outcome == signin.Limited {
		return a.render(w, nil, http.StatusTooManyRequests, "error.html", "Too many sign-in requests", "",
			map[string]string{"Message": "Too many sign-in links were asked for. Wait 15 minutes and try again."})
	}
	if outcome == signin.Sent && a.logLinks {
		a.logger.InfoContext(r.Context(), "dashboard sign-in link (local stack)", slog.String("link", link))
	}
	return a.render(w, nil, http.StatusOK, "signin-sent.html", "Check your email", "", nil)
}

// clientIP is the request's source address: API Gateway's source IP
// through the Lambda adapter, the peer's on the dev server.
func clientIP(r *http.Request) string {
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}

func (a *App) confirmLink(w http.ResponseWriter, r *http.Request, _ *session) error {
	return a.render(w, nil, http.StatusOK, "signin-confirm.html", "Sign in", "", map[string]string{"Token": r.PathValue("token")})
}

func (a *App) useLink(w http.ResponseWriter, r *http.Request, _ *session) error {
	sess, err := a.svc.SignIn.Consume(r.Context(), r.PathValue("token"))
	if errors.Is(err, signin.ErrLinkInvalid) {
		a.errorPage(w, r, nil, http.StatusBadRequest, "This link does not work",
			"The link was used already, has expired (links last 15 minutes) or is not one we sent. Request a new one from the sign-in page.")
		return nil
	}
	if err != nil {
		return err
	}
	http.SetCookie(w, &http.Cookie{
		Name: cookieName, Value: a.signer.Cookie(sess.ID), Path: a.base,
		HttpOnly: true, Secure: a.secure, SameSite: http.SameSiteStrictMode,
	})
	if next, ok := a.resumeConnect(w, r); ok {
		// The consent screen picks its own workspace.
		http.Redirect(w, r, next, http.StatusSeeOther)
		return nil
	}
	if sess.WorkspaceID == "" {
		http.Redirect(w, r, a.base+"/workspaces", http.StatusSeeOther)
		return nil
	}
	if err := a.svc.Owner.Audit.Record(r.Context(), sess.WorkspaceID, sess.Address, account.ActionSignIn, ""); err != nil {
		return err
	}
	http.Redirect(w, r, a.base+"/", http.StatusSeeOther)
	return nil
}

func (a *App) signOut(w http.ResponseWriter, r *http.Request, s *session) error {
	if err := a.svc.SignIn.SignOut(r.Context(), s.Session); err != nil {
		return err
	}
	http.SetCookie(w, &http.Cookie{
		Name: cookieName, Value: "", Path: a.base, MaxAge: -1,
		HttpOnly: true, Secure: a.secure, SameSite: http.SameSiteStrictMode,
	})
	http.Redirect(w, r, a.base+"/sign-in", http.StatusSeeOther)
	return nil
}

// workspaces lists the workspaces the owner may pick.
func (a *App) workspaces(w http.ResponseWriter, r *http.Request, s *session) error {
	ids, err := a.svc.Owner.Owners.WorkspacesOf(r.Context(), s.Address)
	if err != nil {
		return err
	}
	var all []workspace.Workspace
	for _, id := range ids {
		ws, err := a.svc.Owner.Workspaces.Get(r.Context(), id)
		if errors.Is(err, workspace.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		all = append(all, ws)
	}
	return a.render(w, s, http.StatusOK, "workspaces.html", "Workspaces", "", all)
}

func (a *App) pickWorkspace(w http.ResponseWriter, r *http.Request, s *session) error {
	picked, err := a.svc.SignIn.Pick(r.Context(), s.Session, r.PostFormValue("workspace"))
	if errors.Is(err, signin.ErrNotOwner) {
		return errNotFound
	}
	if err != nil {
		return err
	}
	if err := a.svc.Owner.Audit.Record(r.Context(), picked.WorkspaceID, picked.Address, account.ActionSignIn, ""); err != nil {
		return err
	}
	http.Redirect(w, r, a.base+"/", http.StatusSeeOther)
	return nil
}
