package devstack_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/email"
)

// The emails screen: the API's filters, keyset pages of 50, an unknown
// filter refused on the page, an email's timeline in order, another
// workspace's email 404, and the empty state.
func TestDashboardEmails(t *testing.T) {
	d := startDashboard(t)
	c, _ := d.signIn(t, d.owner)
	if p := d.dashDo(t, c, "/dashboard/emails", nil); p.status != http.StatusOK || !strings.Contains(p.body, "No email yet.") {
		t.Fatalf("empty emails: %d", p.status)
	}
	for range 51 {
		d.putEmail(d.ws, nil)
	}
	sent := time.Now().UTC().Add(-time.Hour)
	opened := d.putEmail(d.ws, func(m *email.Email) {
		delivered, open := sent.Add(time.Minute), sent.Add(2*time.Minute)
		m.Subject, m.Status, m.SentAt, m.DeliveredAt, m.OpenedAt = "Opened one", email.StatusOpened, sent, &delivered, &open
	})
	captured := d.putEmail(d.ws, func(m *email.Email) { m.Subject, m.Environment = "Captured one", apikey.Test })

	first := d.dashDo(t, c, "/dashboard/emails", nil)
	if n := strings.Count(first.body, `<a href="/dashboard/emails/`); n != 50 || !strings.Contains(first.body, `id="next-page"`) {
		t.Fatalf("first page: %d emails", n)
	}
	next := strings.ReplaceAll(between(first.body, `<a href="/dashboard/emails?`, `"`), "&amp;", "&")
	second := d.dashDo(t, c, "/dashboard/emails?"+next, nil)
	if n := strings.Count(second.body, `<a href="/dashboard/emails/`); n != 3 || strings.Contains(second.body, `id="next-page"`) {
		t.Errorf("second page: %d emails, want 3 and no further page", n)
	}
	only := d.dashDo(t, c, "/dashboard/emails?status=opened", nil)
	if !strings.Contains(only.body, opened.ID) || strings.Count(only.body, `<a href="/dashboard/emails/`) != 1 {
		t.Errorf("status=opened lists other emails")
	}
	if p := d.dashDo(t, c, "/dashboard/emails?environment=test", nil); !strings.Contains(p.body, captured.ID) || strings.Contains(p.body, opened.ID) {
		t.Error("environment=test")
	}
	if p := d.dashDo(t, c, "/dashboard/emails?status=lost", nil); p.status != http.StatusBadRequest || !strings.Contains(p.body, `status &#34;lost&#34; is not an email status`) {
		t.Errorf("an unknown status: %d", p.status)
	}
	if p := d.dashDo(t, c, "/dashboard/emails?type=campaign", nil); !strings.Contains(p.body, "No email matches these filters.") {
		t.Error("no campaign email: the empty state")
	}
	page := d.dashDo(t, c, "/dashboard/emails/"+strings.ToUpper(opened.ID), nil)
	tl := between(page.body, `id="timeline">`, `</ol>`)
	iSent, iDelivered, iOpened := strings.Index(tl, "sent"), strings.Index(tl, "delivered"), strings.Index(tl, "opened")
	if page.status != http.StatusOK || iSent < 0 || iDelivered < iSent || iOpened < iDelivered || strings.Contains(tl, "bounced") {
		t.Errorf("timeline %q", tl)
	}
	other, _ := d.workspace(apikey.Live)
	foreign := d.putEmail(other, nil)
	for _, path := range []string{"/dashboard/emails/" + foreign.ID, "/dashboard/emails/not-an-id"} {
		if p := d.dashDo(t, c, path, nil); p.status != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", path, p.status)
		}
	}
}

// between is the text of s after the first from, up to the next to.
func between(s, from, to string) string {
	_, after, ok := strings.Cut(s, from)
	if !ok {
		return ""
	}
	out, _, _ := strings.Cut(after, to)
	return out
}
