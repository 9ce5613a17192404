package dashboard

import (
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/webhook"
)

func (a *App) emailRoutes() []route {
	return []route{
		{pattern: "GET /emails", handler: a.emails},
		{pattern: "GET /emails/{id}", handler: a.email},
		{pattern: "GET /preview/emails/{id}", handler: a.previewEmail},
	}
}

// emailsShown is how many emails one page of the list shows.
const emailsShown = 50

type emailsData struct {
	Emails []email.Email
	Filter email.FilterInput
	// Statuses and Types are the filters' choices.
	Statuses []email.Status
	Types    []email.Type
	// Next is the next page's cursor, "" on the last page.
	Next  string
	Error string
}

func (a *App) emails(w http.ResponseWriter, r *http.Request, s *session) error {
	q := r.URL.Query()
	d := emailsData{
		Filter:   email.FilterInput{Status: q.Get("status"), Type: q.Get("type"), Environment: q.Get("environment")},
		Statuses: email.Statuses, Types: []email.Type{email.TypeTransactional, email.TypeCampaign, email.TypeAutomation},
	}
	list, next, err := a.svc.Owner.Emails.List(r.Context(), s.WorkspaceID, d.Filter, q.Get("after"), emailsShown)
	if err != nil {
		return refused(err, func(status int, msg string) error {
			d.Error = msg
			return a.render(w, s, status, "emails.html", "Emails", "/emails", d)
		})
	}
	d.Emails, d.Next = list, next
	return a.render(w, s, http.StatusOK, "emails.html", "Emails", "/emails", d)
}

// previewEmail serves an email's html as it went, for the sandboxed frame
// of its page (see previewRoutes).
func (a *App) previewEmail(w http.ResponseWriter, r *http.Request, s *session) error {
	c, err := a.svc.Owner.Emails.Content(r.Context(), s.WorkspaceID, r.PathValue("id"))
	if errors.Is(err, email.ErrContentNotKept) {
		return servePreview(w, r, "")
	}
	if err != nil {
		return err
	}
	return servePreview(w, r, c.HTML)
}

// step is one status the email reached, in the timeline.
type step struct {
	Label string
	At    time.Time
	Bad   bool
}

type emailData struct {
	email.Shown
	Timeline   []step
	Deliveries webhook.EmailDeliveries
	// DeliveriesFailed: the webhook deliveries could not be read; the
	// rest of the email is shown all the same.
	DeliveriesFailed bool
	// Examined and Endpoints are the search's bounds, said when it stopped.
	Examined, Endpoints int
	// Content is what the email carried; NoContent says why it is not
	// shown instead.
	Content   email.Content
	NoContent string
}

func (a *App) email(w http.ResponseWriter, r *http.Request, s *session) error {
	ctx := r.Context()
	shown, err := a.svc.Owner.Emails.Show(ctx, s.WorkspaceID, r.PathValue("id"))
	if err != nil {
		return err
	}
	d := emailData{Shown: shown, Timeline: timeline(shown.Email), Examined: webhook.EmailDeliveriesExamined, Endpoints: webhook.EmailDeliveriesEndpoints}
	d.Content, err = a.svc.Owner.Emails.Content(ctx, s.WorkspaceID, shown.ID)
	var missing *email.ContentUnavailable
	switch {
	case errors.As(err, &missing):
		d.NoContent = missing.Reason
	case err != nil:
		return err
	}
	if d.Deliveries, err = a.svc.Owner.Webhooks.DeliveriesOf(ctx, shown.Email); err != nil {
		a.logger.ErrorContext(ctx, "dashboard: read an email's webhook deliveries", slog.String("email_id", shown.ID), slog.Any("err", err))
		d.DeliveriesFailed = true
	}
	return a.render(w, s, http.StatusOK, "email.html", "Email", "/emails", d)
}

// timeline is what happened to e, in the order it happens: sent →
// delivered → opened → clicked, or bounced / complained. An email that
// was held, suppressed or failed may never have reached SES: its first
// step is "accepted" (the API's sent_at), and its end is shown, with the
// reason it failed (no time is recorded for it).
func timeline(e email.Email) []step {
	first := "sent"
	switch e.Status {
	case email.StatusHeld, email.StatusSuppressed, email.StatusFailed:
		first = "accepted"
	}
	out := []step{{Label: first, At: e.SentAt}}
	for _, st := range []struct {
		label string
		at    *time.Time
		bad   bool
	}{
		{"delivered", e.DeliveredAt, false}, {"opened", e.OpenedAt, false}, {"clicked", e.ClickedAt, false},
		{"bounced", e.BouncedAt, true}, {"complained", e.ComplainedAt, true},
	} {
		if st.at != nil {
			out = append(out, step{Label: st.label, At: *st.at, Bad: st.bad})
		}
	}
	switch e.Status {
	case email.StatusHeld:
		out = append(out, step{Label: "held for review"})
	case email.StatusSuppressed:
		out = append(out, step{Label: "not sent: the address is on the do-not-send list", Bad: true})
	case email.StatusFailed:
		out = append(out, step{Label: "failed: " + e.Error, Bad: true})
	}
	return out
}
