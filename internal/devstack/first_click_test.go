package devstack_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/status"
)

// A tracked email clicked twice through the local stack's click route:
// the first click is kept on the email (no click record of its own), the
// second is a record, and GET /api/v1/emails/{id}/clicks lists both,
// newest first, with their links.
func TestPipelineFirstClickKeptOnTheEmail(t *testing.T) {
	p := startPipeline(t)
	s := newSendWS(t, p.env, defaultSender())
	id := p.send(t, s.key, msg("clicked-twice", nil))
	p.drain(t, 1)
	click := func(at time.Duration, link string) {
		t.Helper()
		p.clock.Set(pipelineStart.Add(at))
		if r := p.devPost(t, s.key, "/dev/emails/"+id+"/click?url="+url.QueryEscape(link)); r.status != http.StatusAccepted {
			t.Fatalf("click %s: %d %s", link, r.status, r.body)
		}
		p.drain(t, 1)
	}
	click(12*time.Minute, "https://acme.test/orders/1")
	click(15*time.Minute, "https://acme.test/orders/2?ref=mail")

	c := p.clicks(t, s.key, id)
	want := []struct{ url, at string }{{"https://acme.test/orders/2?ref=mail", "2026-11-22T10:15:00.000Z"}, {"https://acme.test/orders/1", "2026-11-22T10:12:00.000Z"}}
	if len(c.Data) != len(want) || c.Truncated || c.OptOutClicks != 0 {
		t.Fatalf("clicks = %+v, want the two clicks", c)
	}
	for i, w := range want {
		got := c.Data[i]
		if got.URL == nil || *got.URL != w.url || got.ClickedAt != w.at || got.Reconstructed || got.UserAgent == nil || *got.UserAgent != "pipeline-test/1.0" {
			t.Errorf("click %d = %+v (url %v), want %s at %s, newest first", i, got, deref(got.URL), w.url, w.at)
		}
	}
	// Where they were kept: the first on the email, the second a record.
	e, err := p.store.Emails.GetEmail(t.Context(), s.id, id)
	if err != nil {
		t.Fatal(err)
	}
	records, _, err := p.store.Clicks.ListClicks(t.Context(), s.id, id, 10)
	if err != nil {
		t.Fatal(err)
	}
	if e.FirstClick == nil || e.FirstClick.URL != want[1].url || len(records) != 1 || records[0].URL != want[0].url {
		t.Errorf("email keeps %+v, click records %+v: want the first click on the email, the second a record", e.FirstClick, records)
	}
}

// The dashboard's email page lists the first click kept on the email with
// the click records, newest first.
func TestDashboardEmailListsTheFirstClick(t *testing.T) {
	d := startDashboard(t)
	c, _ := d.signIn(t, d.owner)
	first, second := time.Now().UTC().Add(-time.Hour).Truncate(time.Second), time.Now().UTC().Add(-time.Minute).Truncate(time.Second)
	m := d.putEmail(d.ws, func(m *email.Email) {
		m.Status, m.ClickedAt = email.StatusClicked, &first
		m.FirstClick = &email.Click{URL: "https://acme.test/first", UserAgent: "first-agent/1.0", ClickedAt: first}
	})
	err := d.store.Statuses.Apply(t.Context(), status.Change{
		WorkspaceID: d.ws, EmailID: m.ID, DedupeID: "evt_second", OccurredAt: second,
		Click: &status.ClickRecord{ID: "evt_second", EmailID: m.ID, URL: "https://acme.test/second", UserAgent: "second-agent/1.0", ClickedAt: second},
	})
	if err != nil {
		t.Fatal(err)
	}
	page := d.dashDo(t, c, "/dashboard/emails/"+m.ID, nil)
	clicks := between(page.body, "<h2>Clicks</h2>", "</table>")
	iSecond, iFirst := strings.Index(clicks, "https://acme.test/second"), strings.Index(clicks, "https://acme.test/first")
	if page.status != http.StatusOK || iSecond < 0 || iFirst < iSecond || !strings.Contains(clicks, "first-agent/1.0") {
		t.Errorf("clicks section %q: want both clicks, newest first", clicks)
	}
}
