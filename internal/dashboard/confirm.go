package dashboard

import (
	"context"
	"net/http"
)

// confirmation is the page that asks before an action that cannot be
// undone: it names the thing and says what is lost.
type confirmation struct {
	Title string
	// Question is asked of Name, shown with Code and Note in brackets.
	Question, Name, Code, Note string
	// Lost says what the action breaks or loses.
	Lost string
	// Action is the path (under the dashboard's base) the confirmed form
	// POSTs to; Button names the button.
	Action, Button string
	// Back is the path of the thing, Keep the link's words to go back
	// with nothing done.
	Back, Keep string
	// nav is the navigation entry the page belongs to.
	nav string
}

// confirmed reports whether the owner confirmed the POST (confirm=yes).
// If not, it shows the page ask builds, which asks: ask returns
// errNotFound (or the owner service's not found) for a thing the
// workspace has not, so another workspace's id is 404 at both steps.
func (a *App) confirmed(w http.ResponseWriter, r *http.Request, s *session, ask func() (confirmation, error)) (bool, error) {
	if r.PostFormValue("confirm") == "yes" {
		return true, nil
	}
	c, err := ask()
	if err != nil {
		return false, err
	}
	return false, a.render(w, s, http.StatusOK, "confirm.html", c.Title, c.nav, c)
}

// askThenDo serves an action that asks first and then lands on a list:
// unconfirmed it shows ask's page; confirmed it does do, writes action on
// do's target to the audit log and redirects to the path list.
func (a *App) askThenDo(w http.ResponseWriter, r *http.Request, s *session, ask func() (confirmation, error),
	action, list string, do func(ctx context.Context) (target string, err error)) error {
	if ok, err := a.confirmed(w, r, s, ask); !ok {
		return err
	}
	target, err := do(r.Context())
	if err != nil {
		return err
	}
	if err := a.audit(r.Context(), s, action, target); err != nil {
		return err
	}
	http.Redirect(w, r, a.base+list, http.StatusSeeOther)
	return nil
}
