package dashboard

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"mime"
	"net/http"
	"slices"
	"strconv"

	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/signin"
)

// cookieName is the session cookie's.
const cookieName = "sesame_session"

// maxForm bounds a form body.
const maxForm = 64 << 10

// route is one method and path under Root, and its handler.
type route struct {
	pattern string // "GET /settings/keys"
	handler pageFunc
	// open routes are served without a session; picker routes with one
	// that has no workspace picked yet.
	open, picker bool
	// maxBody bounds the body of a POST; 0 is maxForm.
	maxBody int64
}

// pageFunc serves a request of a signed-in owner (s is nil on an open
// route). A returned error is answered with an error page (errorPage).
type pageFunc func(w http.ResponseWriter, r *http.Request, s *session) error

// session is the signed-in owner of a request.
type session struct {
	signin.Session
	// CSRF is the token the session's forms carry.
	CSRF string
	// WorkspaceName names the workspace in the header.
	WorkspaceName string
}

func (a *App) routes() *http.ServeMux {
	mux := http.NewServeMux()
	all := slices.Concat(a.signInRoutes(), a.screens())
	for _, rt := range all {
		method, path, _ := cut(rt.pattern)
		mux.Handle(method+" "+Root+path, a.wrap(rt))
	}
	mux.Handle("GET "+Root, http.RedirectHandler(a.base+"/", http.StatusSeeOther))
	mux.Handle("GET "+Root+"/static/", a.static())
	mux.Handle(Root+"/", a.wrap(route{open: true, handler: func(w http.ResponseWriter, r *http.Request, _ *session) error {
		return errNotFound
	}}))
	return mux
}

func cut(pattern string) (method, path string, ok bool) {
	for i := range len(pattern) {
		if pattern[i] == ' ' {
			return pattern[:i], pattern[i+1:], true
		}
	}
	return "", pattern, false
}

// wrap checks what rt needs before its handler runs: a POST comes from the
// dashboard itself (Origin, Sec-Fetch-Site), a session (pages: 303 to
// sign-in; forms: 401), a picked workspace the owner still owns, and a
// form's CSRF token (403).
func (a *App) wrap(rt route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		post := r.Method == http.MethodPost
		if post {
			limit := cmp.Or(rt.maxBody, maxForm)
			r.Body = http.MaxBytesReader(w, r.Body, limit)
			if !a.sameOrigin(r) {
				a.errorPage(w, r, nil, http.StatusForbidden, "Refused", "This form was not sent from the dashboard.")
				return
			}
			// Read now: a form cut at its limit would otherwise lose its
			// CSRF token and be refused as expired.
			var tooLarge *http.MaxBytesError
			if err := parseForm(r, limit); errors.As(err, &tooLarge) {
				a.errorPage(w, r, nil, http.StatusRequestEntityTooLarge, "Too large",
					fmt.Sprintf("This form is larger than the dashboard takes here (%d KB). Nothing was changed: go back, shorten it and send it again.", limit>>10))
				return
			}
		}
		var s *session
		if !rt.open {
			var err error
			s, err = a.session(r)
			if errors.Is(err, signin.ErrNoSession) {
				if post {
					a.errorPage(w, r, nil, http.StatusUnauthorized, "Signed out", "Your session has ended. Sign in again.")
					return
				}
				http.Redirect(w, r, a.base+"/sign-in", http.StatusSeeOther)
				return
			}
			if err != nil {
				a.fail(w, r, nil, err)
				return
			}
			if s.WorkspaceID == "" && !rt.picker {
				http.Redirect(w, r, a.base+"/workspaces", http.StatusSeeOther)
				return
			}
			if post && !a.signer.CheckCSRF(s.ID, r.PostFormValue("csrf")) {
				a.errorPage(w, r, s, http.StatusForbidden, "Refused", "This form has expired or did not come from the dashboard. Reload the page and try again.")
				return
			}
		}
		if s != nil {
			r = r.WithContext(context.WithValue(r.Context(), ownerKey{}, s.Address))
		}
		if err := rt.handler(w, r, s); err != nil {
			a.fail(w, r, s, err)
		}
	})
}

// parseForm reads r's form, a multipart one (a file upload) included,
// keeping up to limit bytes in memory.
func parseForm(r *http.Request, limit int64) error {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "multipart/form-data" {
		return r.ParseMultipartForm(limit)
	}
	return r.ParseForm()
}

// sameOrigin reports whether a POST may come from the dashboard's own
// pages: an Origin, when the browser sends a real one, is the
// dashboard's, and Sec-Fetch-Site, when sent, says same-origin. (With
// Referrer-Policy: no-referrer a browser's form POST says Origin: null;
// Sec-Fetch-Site then decides.)
func (a *App) sameOrigin(r *http.Request) bool {
	if o := r.Header.Get("Origin"); o != "" && o != "null" && o != a.origin {
		return false
	}
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "same-origin", "none":
		return true
	}
	return false
}

// session is the request's live session, with its workspace when one is
// picked and still the owner's; signin.ErrNoSession otherwise.
func (a *App) session(r *http.Request) (*session, error) {
	c, err := r.Cookie(cookieName)
	if err != nil {
		return nil, signin.ErrNoSession
	}
	id, ok := a.signer.SessionID(c.Value)
	if !ok {
		return nil, signin.ErrNoSession
	}
	ctx := r.Context()
	sess, err := a.svc.SignIn.Session(ctx, id)
	if err != nil {
		return nil, err
	}
	s := &session{Session: sess, CSRF: a.signer.CSRF(id)}
	if sess.WorkspaceID == "" {
		return s, nil
	}
	// Removed from the workspace since signing in: the session ends.
	owns, err := a.svc.Owner.Owners.Owns(ctx, sess.WorkspaceID, sess.Address)
	if err != nil {
		return nil, err
	}
	if !owns {
		if err := a.svc.SignIn.SignOut(ctx, sess); err != nil {
			return nil, err
		}
		return nil, signin.ErrNoSession
	}
	ws, err := a.svc.Owner.Workspaces.Get(ctx, sess.WorkspaceID)
	if err != nil {
		return nil, err
	}
	s.WorkspaceName = ws.Name
	return s, nil
}

// errNotFound answers a path or id the workspace has not.
var errNotFound = errors.New("not found")

// fail answers err with its error page: not found (another workspace's
// id included) 404, a refused input 400 with its reason, a dependency
// that could not answer 503 with Retry-After, else 500; the last two
// logged.
func (a *App) fail(w http.ResponseWriter, r *http.Request, s *session, err error) {
	if e, ok := fail.As(err); ok && e.Kind == fail.KindUnavailable {
		a.logger.WarnContext(r.Context(), "dashboard request: a dependency is unavailable", slog.String("path", r.URL.Path), slog.Any("err", err))
		w.Header().Set("Retry-After", strconv.Itoa(max(int(math.Ceil(e.RetryAfter.Seconds())), 1)))
		a.errorPage(w, r, s, http.StatusServiceUnavailable, "Not available right now", "The dashboard could not reach its data store. Try again in a few seconds.")
		return
	}
	switch {
	case errors.Is(err, errNotFound) || fail.KindOf(err) == fail.KindNotFound:
		a.errorPage(w, r, s, http.StatusNotFound, "Not found", "There is nothing here in this workspace.")
	case isRefusal(fail.KindOf(err)):
		a.errorPage(w, r, s, http.StatusBadRequest, "Not done", fail.MessageOf(err))
	default:
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			a.errorPage(w, r, s, http.StatusRequestEntityTooLarge, "Too large", "The form is too large.")
			return
		}
		a.logger.ErrorContext(r.Context(), "dashboard request failed", slog.String("path", r.URL.Path), slog.Any("err", err))
		a.errorPage(w, r, s, http.StatusInternalServerError, "Something went wrong", "The dashboard could not do this now. Try again in a moment.")
	}
}

// isRefusal reports whether an error of kind k refuses the owner's input
// or action (a 400 with its reason) rather than being absent or a fault.
func isRefusal(k fail.Kind) bool {
	switch k {
	case fail.KindInvalid, fail.KindMissing, fail.KindConflict, fail.KindForbidden, fail.KindTooLarge:
		return true
	}
	return false
}

// refusal is the reason shown for err when it refuses the owner's input or
// action; ok is false for any other error, which the error page answers.
func refusal(err error) (msg string, ok bool) {
	if !isRefusal(fail.KindOf(err)) {
		return "", false
	}
	return fail.MessageOf(err), true
}

// audit records an owner action of s; a failed write fails the request
// after the action, which the owner sees as an error page.
func (a *App) audit(ctx context.Context, s *session, action, target string) error {
	return a.svc.Owner.Audit.Record(ctx, s.WorkspaceID, s.Address, action, target)
}

// static serves the embedded stylesheet and images.
func (a *App) static() http.Handler {
	files := http.FileServerFS(assets)
	return http.StripPrefix(Root, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=3600")
		files.ServeHTTP(w, r)
	}))
}

// ownerKey holds the signed-in owner's address in a request's context.
type ownerKey struct{}

// Approver names the signed-in owner of the request as the approver of a
// campaign (campaign.Approver): "dashboard:<address>".
type Approver struct{}

// Identity is the request's owner.
func (Approver) Identity(ctx context.Context) (string, error) {
	address, ok := ctx.Value(ownerKey{}).(string)
	if !ok || address == "" {
		return "", errors.New("dashboard: no signed-in owner to approve as")
	}
	return "dashboard:" + address, nil
}
