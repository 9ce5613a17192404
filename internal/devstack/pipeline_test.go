package devstack_test

// The delivery pipeline end to end, over HTTP: a send goes through the SES
// emulator, the simulated SES events land on a ses-events queue, the status
// consumer drains it, and the API reads back the email, the events feed,
// the click list and the metrics.

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/api"
	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/devstack"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/workspace"
)

func TestPipelineDelivered(t *testing.T) {
	p := startPipeline(t)
	s := newSendWS(t, p.env, defaultSender())
	id := p.send(t, s.key, msg("delivered", nil))

	p.rec.Reset()
	p.drain(t, 1) // Delivery (the configuration sets publish no Send)
	// Budget: an SES event writes at most 3 items, and the one that ends
	// the email in SES also the batch's usage counter.
	if w := p.rec.Writes(); w > 4 {
		t.Errorf("the Delivery wrote %d items, want at most 4 (email, feed item, daily counter, usage)", w)
	}

	d := p.wantEmail(t, s.key, id, "delivered", "")
	if d["delivered_at"] != "2026-11-22T10:00:01.000Z" || d["sent_at"] != "2026-11-22T10:00:00.000Z" {
		t.Errorf("sent_at %v, delivered_at %v", d["sent_at"], d["delivered_at"])
	}
	for _, f := range []string{"opened_at", "clicked_at", "bounced_at", "complained_at"} {
		if d[f] != nil {
			t.Errorf("%s = %v, want null", f, d[f])
		}
	}

	f := p.feed(t, s.key, "")
	if len(f.Data) != 1 || f.HasMore || f.NextCursor != nil {
		t.Fatalf("feed = %+v, want one email.delivered item", f)
	}
	it := f.Data[0]
	if it.Type != "email.delivered" || !strings.HasPrefix(it.ID, "evt_") || it.CreatedAt != "2026-11-22T10:00:01.000Z" {
		t.Errorf("feed item = %+v", it)
	}
	if it.Data["id"] != id || it.Data["status"] != "delivered" || it.Data["delivered_at"] != "2026-11-22T10:00:01.000Z" || it.Data["open_tracking_mode"] != "full" {
		t.Errorf("feed item data = %v, want the delivered email", it.Data)
	}

	// The live send counts toward the monthly allowance, once.
	c, err := p.store.Sends.LoadContext(t.Context(), sending.ContextQuery{WorkspaceID: s.id, Recipient: "x@example.com", Fingerprint: "none", Month: "2026-11", ReadUsage: true})
	if err != nil {
		t.Fatal(err)
	}
	if c.MonthlySent != 1 {
		t.Errorf("monthly usage = %d, want 1", c.MonthlySent)
	}

	const day = "?from=2026-11-22&to=2026-11-22"
	cases := map[string]struct {
		query string
		want  map[string]int
	}{
		"the day":                    {day, totals("sent", 1, "delivered", 1)},
		"type transactional":         {day + "&type=transactional", totals("sent", 1, "delivered", 1)},
		"type campaign":              {day + "&type=campaign", totals()},
		"environment live":           {day + "&environment=live", totals("sent", 1, "delivered", 1)},
		"environment test":           {day + "&environment=test", totals()},
		"transactional and live":     {day + "&type=transactional&environment=live", totals("sent", 1, "delivered", 1)},
		"a range around it":          {"?from=2026-11-01&to=2026-11-30", totals("sent", 1, "delivered", 1)},
		"the day before":             {"?from=2026-11-21&to=2026-11-21", totals()},
		"automation over the period": {"?from=2026-11-01&to=2026-11-30&type=automation", totals()},
	}
	for name, tc := range cases {
		t.Run("metrics "+name, func(t *testing.T) {
			if got := p.metrics(t, s.key, tc.query).Totals; !reflect.DeepEqual(got, tc.want) {
				t.Errorf("totals = %v, want %v", got, tc.want)
			}
		})
	}
	if m := p.metrics(t, s.key, day); len(m.Days) != 1 || m.Days[0].Date != "2026-11-22" || m.Days[0].Counts["delivered"] != 1 {
		t.Errorf("days = %+v", m.Days)
	}
	bad := map[string]struct{ query, param string }{
		"from not a date": {"?from=2026-02-30", "from"},
		"to not a date":   {"?from=2026-11-01&to=11/22/2026", "to"},
		"to before from":  {"?from=2026-11-22&to=2026-11-01", "to"},
		"too long":        {"?from=2025-01-01&to=2026-11-22", "from"},
		"type unknown":    {"?type=newsletter", "type"},
		"environment":     {"?environment=staging", "environment"},
	}
	for name, tc := range bad {
		t.Run("metrics "+name, func(t *testing.T) {
			p.bad().get(bearer(s.key), "/api/v1/metrics"+tc.query).wantError(t, http.StatusBadRequest, "invalid_field", tc.param)
		})
	}
}

func TestPipelineBouncesAndComplaints(t *testing.T) {
	p := startPipeline(t)
	cases := map[string]struct {
		to     string
		events int // SES events the simulator publishes
		status string
		times  map[string]string // *_at set by the events
		feed   []string          // newest first
		counts map[string]int
		listed suppressionEntry // the do-not-send list's entry, without email_id
	}{
		"hard bounce": {devstack.SimulatorBounce, 1, "bounced",
			map[string]string{"bounced_at": "2026-11-22T10:00:01.000Z"},
			[]string{"email.bounced"}, totals("sent", 1, "bounced", 1),
			suppressionEntry{Email: devstack.SimulatorBounce, Reason: "bounced", CreatedAt: "2026-11-22T10:00:01.000Z"}},
		"on the account suppression list": {devstack.SimulatorSuppressionList, 1, "bounced",
			map[string]string{"bounced_at": "2026-11-22T10:00:01.000Z"},
			[]string{"email.bounced"}, totals("sent", 1, "bounced", 1),
			suppressionEntry{Email: devstack.SimulatorSuppressionList, Reason: "bounced", CreatedAt: "2026-11-22T10:00:01.000Z"}},
		"complaint": {devstack.SimulatorComplaint, 2, "complained",
			map[string]string{"delivered_at": "2026-11-22T10:00:01.000Z", "complained_at": "2026-11-22T10:00:02.000Z"},
			[]string{"email.complained", "email.delivered"}, totals("sent", 1, "delivered", 1, "complained", 1),
			suppressionEntry{Email: devstack.SimulatorComplaint, Reason: "complained", CreatedAt: "2026-11-22T10:00:02.000Z"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := newSendWS(t, p.env, defaultSender())
			before := len(p.ses.sendsTo(tc.to))
			id := p.send(t, s.key, msg("sim", map[string]any{"to": tc.to}))
			p.drain(t, tc.events)

			d := p.wantEmail(t, s.key, id, tc.status, "")
			for _, f := range []string{"delivered_at", "opened_at", "clicked_at", "bounced_at", "complained_at"} {
				want, set := tc.times[f]
				if (set && d[f] != want) || (!set && d[f] != nil) {
					t.Errorf("%s = %v, want %q", f, d[f], want)
				}
			}
			f := p.feed(t, s.key, "")
			if got := f.types(); !reflect.DeepEqual(got, tc.feed) {
				t.Errorf("feed types = %v, want %v", got, tc.feed)
			}
			for _, it := range f.Data {
				if it.Data["id"] != id || !strings.HasPrefix(it.ID, "evt_") {
					t.Errorf("feed item %s: id %s, data id %v", it.Type, it.ID, it.Data["id"])
				}
			}
			// Each item shows the email right after its event; the newest
			// shows the final status.
			if len(f.Data) > 0 && f.Data[0].Data["status"] != tc.status {
				t.Errorf("newest feed item shows status %v, want %s", f.Data[0].Data["status"], tc.status)
			}
			if got := p.metrics(t, s.key, "?from=2026-11-22&to=2026-11-22").Totals; !reflect.DeepEqual(got, tc.counts) {
				t.Errorf("metrics = %v, want %v", got, tc.counts)
			}

			// The address is now on the do-not-send list, with its reason and
			// the email that put it there: the next send is recorded as
			// suppressed and never reaches SES.
			list := p.suppressions(t, s.key, "").Data
			if len(list) != 1 || deref(list[0].EmailID) != id {
				t.Errorf("do-not-send list = %+v, want one entry with email_id %s", list, id)
			} else if got := list[0]; got.Email != tc.listed.Email || got.Reason != tc.listed.Reason || got.CreatedAt != tc.listed.CreatedAt {
				t.Errorf("entry %+v, want %+v", got, tc.listed)
			}
			r := p.postTo(t, p.url, s.key, "/api/v1/send", msg("again", map[string]any{"to": strings.ToUpper(tc.to)})).sent(t, http.StatusOK)
			r.want(t, false, "suppressed")
			p.wantEmail(t, s.key, r.ID, "suppressed", "")
			if n := len(p.ses.sendsTo(tc.to)) - before; n != 1 {
				t.Errorf("%d SES sends to %s, want only the first", n, tc.to)
			}
			// Another workspace may still send to it.
			other := newSendWS(t, p.env, defaultSender())
			p.send(t, other.key, msg("other", map[string]any{"to": tc.to}))
			p.drain(t, tc.events)
		})
	}
}

func TestPipelineOpensAndClicks(t *testing.T) {
	p := startPipeline(t)
	s := newSendWS(t, p.env, defaultSender())
	id := p.send(t, s.key, msg("engaged", nil))
	p.drain(t, 1)

	p.clock.Set(pipelineStart.Add(10 * time.Minute))
	if r := p.devPost(t, s.key, "/dev/emails/"+id+"/open"); r.status != http.StatusAccepted {
		t.Fatalf("open: %d %s", r.status, r.body)
	}
	p.drain(t, 1)
	d := p.wantEmail(t, s.key, id, "opened", "")
	if d["opened_at"] != "2026-11-22T10:10:00.000Z" {
		t.Errorf("opened_at = %v", d["opened_at"])
	}

	click := func(at time.Duration, link string) {
		t.Helper()
		p.clock.Set(pipelineStart.Add(at))
		if r := p.devPost(t, s.key, "/dev/emails/"+id+"/click?url="+url.QueryEscape(link)); r.status != http.StatusAccepted {
			t.Fatalf("click %s: %d %s", link, r.status, r.body)
		}
		p.drain(t, 1)
	}
	click(12*time.Minute, "https://acme.test/orders/1")
	d = p.wantEmail(t, s.key, id, "clicked", "")
	if d["clicked_at"] != "2026-11-22T10:12:00.000Z" {
		t.Errorf("clicked_at = %v", d["clicked_at"])
	}
	click(15*time.Minute, "https://acme.test/orders/2?ref=mail")
	click(20*time.Minute, "https://acme.test/email/unsubscribe?c=1")
	// A repeated open counts as engagement in the feed, not in the status.
	p.clock.Set(pipelineStart.Add(25 * time.Minute))
	p.devPost(t, s.key, "/dev/emails/"+id+"/open")
	p.drain(t, 1)

	c := p.clicks(t, s.key, id)
	if len(c.Data) != 2 || c.OptOutClicks != 1 || c.Truncated {
		t.Fatalf("clicks = %+v, want the two tracked clicks and one opt-out", c)
	}
	want := []struct{ url, at string }{{"https://acme.test/orders/2?ref=mail", "2026-11-22T10:15:00.000Z"}, {"https://acme.test/orders/1", "2026-11-22T10:12:00.000Z"}}
	for i, w := range want {
		got := c.Data[i]
		if got.URL == nil || *got.URL != w.url || got.ClickedAt != w.at || got.Reconstructed || got.UserAgent == nil || *got.UserAgent != "pipeline-test/1.0" {
			t.Errorf("click %d = %+v (url %v), want %s at %s, newest first", i, got, deref(got.URL), w.url, w.at)
		}
	}
	d = p.wantEmail(t, s.key, id, "clicked", "")
	if d["clicked_at"] != "2026-11-22T10:12:00.000Z" || d["opened_at"] != "2026-11-22T10:10:00.000Z" {
		t.Errorf("first times moved: clicked_at %v, opened_at %v", d["clicked_at"], d["opened_at"])
	}
	f := p.feed(t, s.key, "")
	wantFeed := []string{"email.opened", "email.clicked", "email.clicked", "email.opened", "email.delivered"}
	if got := f.types(); !reflect.DeepEqual(got, wantFeed) {
		t.Errorf("feed = %v, want %v (no item for the unsubscribe click)", got, wantFeed)
	}
	if got := p.metrics(t, s.key, "?from=2026-11-22&to=2026-11-22").Totals; !reflect.DeepEqual(got, totals("sent", 1, "delivered", 1, "opened", 1, "clicked", 1)) {
		t.Errorf("metrics = %v, want each counted once per email", got)
	}
}

func TestPipelineEssentialOpensOnce(t *testing.T) {
	p := startPipeline(t)
	s := newSendWS(t, p.env, defaultSender())
	id := p.send(t, s.key, msg("essential", map[string]any{"tracking": "essential"}))
	p.drain(t, 1)
	for _, at := range []time.Duration{10 * time.Minute, 4 * time.Hour, 23 * time.Hour} {
		p.clock.Set(pipelineStart.Add(at))
		if r := p.devPost(t, s.key, "/dev/emails/"+id+"/open"); r.status != http.StatusAccepted {
			t.Fatalf("open: %d %s", r.status, r.body)
		}
		p.drain(t, 1)
	}
	d := p.wantEmail(t, s.key, id, "opened", "")
	if d["opened_at"] != "2026-11-22T00:00:00.000Z" || d["open_tracking_mode"] != "essential" {
		t.Errorf("opened_at %v, mode %v; want the date at midnight UTC under essential", d["opened_at"], d["open_tracking_mode"])
	}
	var opened []feedItem
	for _, it := range p.feed(t, s.key, "").Data {
		if it.Type == "email.opened" {
			opened = append(opened, it)
		}
	}
	if len(opened) != 1 {
		t.Fatalf("%d email.opened items for three opens, want 1", len(opened))
	}
	if opened[0].CreatedAt != "2026-11-22T00:00:00.000Z" || opened[0].Data["opened_at"] != "2026-11-22T00:00:00.000Z" {
		t.Errorf("opened item = %+v", opened[0])
	}
	if got := p.metrics(t, s.key, "?from=2026-11-22&to=2026-11-23").Totals["opened"]; got != 1 {
		t.Errorf("opened counted %d times, want 1", got)
	}
}

func TestPipelineTrackingOffIgnoresEngagement(t *testing.T) {
	p := startPipeline(t)
	s := newSendWS(t, p.env, defaultSender())
	yes := true
	s.update(t, p.env, workspace.Settings{TrackingOffProvisioned: &yes})
	id := p.send(t, s.key, msg("off", map[string]any{"tracking": "off"}))
	p.drain(t, 1)
	p.devPost(t, s.key, "/dev/emails/"+id+"/open")
	p.devPost(t, s.key, "/dev/emails/"+id+"/click?url="+url.QueryEscape("https://acme.test/a"))
	p.drain(t, 2)
	d := p.wantEmail(t, s.key, id, "delivered", "")
	if d["opened_at"] != nil || d["clicked_at"] != nil {
		t.Errorf("tracking off: opened_at %v, clicked_at %v; want null", d["opened_at"], d["clicked_at"])
	}
	if got := p.feed(t, s.key, "").types(); !reflect.DeepEqual(got, []string{"email.delivered"}) {
		t.Errorf("feed = %v, want only the delivery", got)
	}
	if c := p.clicks(t, s.key, id); len(c.Data) != 0 {
		t.Errorf("clicks = %+v", c)
	}
}

func TestPipelineDevRoutesRefuse(t *testing.T) {
	p := startPipeline(t)
	s := newSendWS(t, p.env, defaultSender())
	other := newSendWS(t, p.env, defaultSender())
	id := p.send(t, s.key, msg("dev", nil))
	theirs := p.send(t, other.key, msg("dev", nil))
	p.drain(t, 2)
	testMail := p.postTo(t, p.url, s.testKey, "/api/v1/send", msg("captured", nil)).sent(t, http.StatusOK).ID
	cases := map[string]struct {
		path   string
		status int
		code   string
		param  string
	}{
		"another workspace's email": {"/dev/emails/" + theirs + "/open", 404, "not_found", ""},
		"absent email":              {"/dev/emails/" + uuid.NewString() + "/click?url=https://a.test/", 404, "not_found", ""},
		"test-mode email":           {"/dev/emails/" + testMail + "/open", 400, "invalid_field", "id"},
		"click without url":         {"/dev/emails/" + id + "/click", 400, "invalid_field", "url"},
		"click on a relative url":   {"/dev/emails/" + id + "/click?url=/orders/1", 400, "invalid_field", "url"},
		"click on a mailto link":    {"/dev/emails/" + id + "/click?url=mailto:a@b.test", 400, "invalid_field", "url"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p.devPost(t, s.key, tc.path).wantError(t, tc.status, tc.code, tc.param)
		})
	}
	if v, inFlight := p.queues.Counts(t, queue.SESEvents.Name); v != 0 || inFlight != 0 {
		t.Errorf("refused requests queued SES events: %d visible, %d in flight", v, inFlight)
	}
}

func TestPipelineClickList(t *testing.T) {
	p := startPipeline(t)
	wsID, key := p.workspace(apikey.Live)
	otherWS, _ := p.workspace(apikey.Live)
	clickedAt := time.Date(2026, 11, 20, 8, 30, 0, 0, time.UTC)
	// An older row that kept only its latest click time.
	legacy := p.putEmail(wsID, func(m *email.Email) { m.Status, m.ClickedAt = email.StatusClicked, &clickedAt })
	unclicked := p.putEmail(wsID, nil)
	theirs := p.putEmail(otherWS, func(m *email.Email) { m.Status, m.ClickedAt = email.StatusClicked, &clickedAt })

	c := p.clicks(t, key, legacy.ID)
	if len(c.Data) != 1 || !c.Data[0].Reconstructed || c.Data[0].URL != nil || c.Data[0].UserAgent != nil ||
		c.Data[0].ClickedAt != "2026-11-20T08:30:00.000Z" || c.OptOutClicks != 0 || c.Truncated {
		t.Errorf("legacy clicks = %+v, want one reconstructed entry at clicked_at", c)
	}
	if c := p.clicks(t, key, unclicked.ID); len(c.Data) != 0 || c.OptOutClicks != 0 {
		t.Errorf("unclicked email: %+v, want an empty list", c)
	}
	for name, id := range map[string]string{
		"another workspace's email": theirs.ID,
		"absent email":              uuid.NewString(),
		"not a uuid":                "not-a-uuid",
		"uuid with junk":            legacy.ID + "x",
	} {
		t.Run(name, func(t *testing.T) {
			c := p.env
			if _, err := uuid.Parse(id); err != nil {
				c = p.bad() // an id that is not a UUID, on purpose
			}
			c.get(bearer(key), "/api/v1/emails/"+id+"/clicks").wantError(t, http.StatusNotFound, "not_found", "")
		})
	}
}

func TestPipelineScopes(t *testing.T) {
	p := startPipeline(t)
	wsID, _ := p.workspace(apikey.Live)
	m := p.putEmail(wsID, nil)
	cases := map[string]struct {
		path  string
		scope apikey.Scope
	}{
		"events feed": {"/api/v1/events", apikey.EventsRead},
		"metrics":     {"/api/v1/metrics", apikey.MetricsRead},
		"click list":  {"/api/v1/emails/" + m.ID + "/clicks", apikey.EmailsRead},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var others []apikey.Scope
			for _, s := range apikey.FullAccess {
				if s != tc.scope {
					others = append(others, s)
				}
			}
			without, _, err := p.store.Keys.CreateKey(t.Context(), wsID, apikey.Live, "", others)
			if err != nil {
				t.Fatal(err)
			}
			only, _, err := p.store.Keys.CreateKey(t.Context(), wsID, apikey.Live, "", []apikey.Scope{tc.scope})
			if err != nil {
				t.Fatal(err)
			}
			r := p.get(bearer(without), tc.path)
			r.wantError(t, http.StatusForbidden, "insufficient_scope", "")
			if !strings.Contains(string(r.body), string(tc.scope)) {
				t.Errorf("message should name %s: %s", tc.scope, r.body)
			}
			if r := p.get(bearer(only), tc.path); r.status != http.StatusOK {
				t.Errorf("key with only %s: %d %s", tc.scope, r.status, r.body)
			}
		})
	}
}

// sesFixture is the SES event sample name expanded for email m.
func sesFixture(t *testing.T, name string, m email.Email) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "events", "ses", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"WORKSPACE_ID": m.WorkspaceID, "EMAIL_ID": m.ID, "RECIPIENT": m.To}
	return os.Expand(string(raw), func(k string) string { return vars[k] })
}

func TestPipelineEventsFeedPagination(t *testing.T) {
	p := startPipeline(t)
	wsID, key := p.workspace(apikey.Live)
	otherWS, otherKey := p.workspace(apikey.Live)
	m := p.putEmail(wsID, nil)
	theirs := p.putEmail(otherWS, nil)
	// Feed events at 10:00:01.250 (delivered), 10:10 (opened), 10:12 (clicked),
	// handed to the status consumer as SQS would.
	var batch events.SQSEvent
	for i, name := range []string{"open", "delivery", "click"} {
		for j, e := range []email.Email{m, theirs} {
			batch.Records = append(batch.Records, events.SQSMessage{MessageId: fmt.Sprintf("m%d-%d", i, j), Body: sesFixture(t, name, e)})
		}
	}
	resp, err := api.Consumers(p.deps)[routes.Status](t.Context(), batch)
	if err != nil || len(resp.BatchItemFailures) != 0 {
		t.Fatalf("status consumer: %+v, %v", resp, err)
	}

	wantOrder := []string{"email.clicked", "email.opened", "email.delivered"}
	for _, limit := range []int{1, 2, 3} {
		t.Run(fmt.Sprintf("limit=%d", limit), func(t *testing.T) {
			var seen []string
			ids := map[string]bool{}
			query := fmt.Sprintf("?limit=%d", limit)
			for page := 0; ; page++ {
				if page > 3 {
					t.Fatal("the feed does not end")
				}
				f := p.feed(t, key, query)
				if len(f.Data) > limit {
					t.Errorf("page of %d items, limit %d", len(f.Data), limit)
				}
				for _, it := range f.Data {
					seen = append(seen, it.Type)
					if ids[it.ID] || it.Data["id"] != m.ID {
						t.Errorf("item %s (email %v) repeated or not of this workspace", it.ID, it.Data["id"])
					}
					ids[it.ID] = true
				}
				if !f.HasMore {
					if f.NextCursor != nil {
						t.Errorf("last page has next_cursor %q", *f.NextCursor)
					}
					break
				}
				if f.NextCursor == nil {
					t.Fatal("has_more without next_cursor")
				}
				query = fmt.Sprintf("?limit=%d&cursor=%s", limit, url.QueryEscape(*f.NextCursor))
			}
			if !reflect.DeepEqual(seen, wantOrder) {
				t.Errorf("feed = %v, want %v (newest first)", seen, wantOrder)
			}
		})
	}
	first := p.feed(t, key, "?limit=1")
	p.get(bearer(otherKey), "/api/v1/events?cursor="+url.QueryEscape(*first.NextCursor)).wantError(t, http.StatusBadRequest, "invalid_field", "cursor")
	p.bad().get(bearer(key), "/api/v1/events?limit=0").wantError(t, http.StatusBadRequest, "invalid_field", "limit")
	p.get(bearer(key), "/api/v1/events?cursor=bm90LWEtY3Vyc29y").wantError(t, http.StatusBadRequest, "invalid_field", "cursor")
	if got := p.feed(t, otherKey, "").types(); !reflect.DeepEqual(got, wantOrder) {
		t.Errorf("other workspace's feed = %v, want its own three events", got)
	}
}
