package dashboard

import (
	"net/http"
	"strings"

	"github.com/sesame-mail/sesame/internal/account"
	"github.com/sesame-mail/sesame/internal/suppression"
)

func (a *App) suppressionRoutes() []route {
	return []route{
		{pattern: "GET /suppressions", handler: a.suppressions},
		{pattern: "POST /suppressions", handler: a.addSuppression},
		{pattern: "POST /suppressions/remove", handler: a.removeSuppression},
	}
}

type suppressionsData struct {
	Entries []suppression.Suppression
	Reasons []suppression.Reason
	// Email and Reason are the list's filter as given.
	Email, Reason string
	// Notice says what the last form did; Error why it was refused.
	Notice, Error string
}

func (a *App) suppressionsPage(w http.ResponseWriter, r *http.Request, s *session, status int, d suppressionsData) error {
	d.Reasons = suppression.Reasons
	entries, err := a.svc.Owner.Suppressions.List(r.Context(), s.WorkspaceID, suppression.Filter{
		Email: d.Email, Reason: suppression.Reason(d.Reason),
	})
	if msg, ok := refusal(err); ok {
		// A filter that reads as no address or reason: the list is empty
		// and the page says why.
		status, d.Error = http.StatusBadRequest, msg
	} else if err != nil {
		return err
	}
	d.Entries = entries
	return a.render(w, s, status, "suppressions.html", "Suppressions", "/suppressions", d)
}

func (a *App) suppressions(w http.ResponseWriter, r *http.Request, s *session) error {
	q := r.URL.Query()
	return a.suppressionsPage(w, r, s, http.StatusOK, suppressionsData{
		Email: strings.TrimSpace(q.Get("email")), Reason: q.Get("reason"),
	})
}

func (a *App) addSuppression(w http.ResponseWriter, r *http.Request, s *session) error {
	address := strings.TrimSpace(r.PostFormValue("address"))
	reason := r.PostFormValue("reason")
	if reason == "" {
		reason = suppression.ManualReason
	}
	sup, added, err := a.svc.Owner.Suppressions.Add(r.Context(), s.WorkspaceID, address, reason)
	if msg, ok := refusal(err); ok {
		return a.suppressionsPage(w, r, s, http.StatusBadRequest, suppressionsData{Error: msg})
	}
	if err != nil {
		return err
	}
	notice := sup.Email + " was listed already, as " + string(sup.Reason) + ": its entry stays."
	if added {
		if err := a.audit(r.Context(), s, account.ActionSuppressionAdded, sup.Email); err != nil {
			return err
		}
		notice = sup.Email + " is suppressed: no email goes to it."
	}
	return a.suppressionsPage(w, r, s, http.StatusOK, suppressionsData{Notice: notice})
}

func (a *App) removeSuppression(w http.ResponseWriter, r *http.Request, s *session) error {
	sup, err := a.svc.Owner.Suppressions.Remove(r.Context(), s.WorkspaceID, r.PostFormValue("address"))
	if err != nil {
		return err // not listed: 404
	}
	if err := a.audit(r.Context(), s, account.ActionSuppressionRemoved, sup.Email); err != nil {
		return err
	}
	return a.suppressionsPage(w, r, s, http.StatusOK, suppressionsData{Notice: sup.Email + " is no longer suppressed: email goes to it again."})
}
