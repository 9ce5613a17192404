package devstack_test

import (
	"bytes"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/automation"
	"github.com/sesame-mail/sesame/internal/automation/runner"
	"github.com/sesame-mail/sesame/internal/email"
)

// The owner creates cart_abandoned from its blueprint and activates it;
// the backend reports the event with a <script> product name. An hour
// later the tick and the runner send the first reminder (type automation,
// the name escaped, the footer and one-click unsubscribe), delivered
// through the pipeline (status, webhook); a day later the second. The run
// completes, its live claim goes: a new event_key starts again, the old
// one stays a duplicate.
func TestAutomationCartAbandonedEndToEnd(t *testing.T) {
	t.Parallel()
	p := startAutomationPipeline(t, pipelineStart)
	b, c, rcv, a := p.cartAbandoned(t)

	script := map[string]any{"product_name": "<script>x</script>"}
	res := p.report(t, b.key, event("cart_abandoned", "order-1", c.ID, script))
	wantRuns(t, res, automation.OutcomeStarted)
	m := automation.WakeMessage{WorkspaceID: b.id, AutomationID: a.ID, RunID: res.Runs[0].RunID}
	drainAutomations(t, p.runner)
	if r := runOf(t, p.env, m); r.Step != 1 || len(p.ses.sendsTo(c.Email)) != 0 {
		t.Fatalf("before the hour: %+v", r)
	}

	p.after(t, time.Hour)
	list := p.automationEmails(t, b.key)
	if len(list.Data) != 1 || list.Data[0].Type != "automation" || list.Data[0].Environment != "live" {
		t.Fatalf("after an hour: GET /emails?type=automation %+v, want one live automation email", list.Data)
	}
	first := list.Data[0].ID
	msg, raw := p.raw(t, b.key, first)
	html := raw[bytes.Index(raw, []byte("text/html")):]
	if !bytes.Contains(html, []byte("&lt;script&gt;x&lt;/script&gt;")) || bytes.Contains(html, []byte("<script>")) {
		t.Errorf("the product name is not escaped in the html:\n%s", raw)
	}
	if subject := msg.Header.Get("Subject"); subject != "You left <script>x</script> in your cart" {
		t.Errorf("subject %q, want the product name as text", subject)
	}
	if !bytes.Contains(raw, []byte("Springfield")) || msg.Header.Get("List-Unsubscribe-Post") != "List-Unsubscribe=One-Click" {
		t.Errorf("no footer or one-click unsubscribe:\n%s", raw)
	}
	unsubscribeURL(t, msg)
	p.drainStatus(t)
	var one struct {
		Data struct {
			Status string `json:"status"`
			Type   string `json:"type"`
		} `json:"data"`
	}
	p.get(bearer(b.key), "/api/v1/emails/"+first).decode(t, http.StatusOK, &one)
	if one := one.Data; one.Status != "delivered" || one.Type != "automation" {
		t.Errorf("the first email through the pipeline: %+v, want delivered", one)
	}
	if got := rcv.received(); len(got) != 1 || !bytes.Contains(got[0].body, []byte(first)) {
		t.Errorf("webhook deliveries %d, want one naming %s", len(got), first)
	}

	p.after(t, 24*time.Hour)
	if list = p.automationEmails(t, b.key); len(list.Data) != 2 {
		t.Fatalf("after the day: %d automation emails, want 2", len(list.Data))
	}
	r := runOf(t, p.env, m)
	if r.Status != automation.RunCompleted || len(r.Log) != 4 || r.EndedAt == nil {
		t.Fatalf("the run after both reminders: %+v", r)
	}
	if got := len(p.ses.sendsTo(c.Email)); got != 2 {
		t.Errorf("%d sends through SES, want 2", got)
	}
	p.drainStatus(t)
	if got := p.monthlySent(t, b.id); got != 2 {
		t.Errorf("monthly usage %d, want 2", got)
	}
	wantRuns(t, p.report(t, b.key, event("cart_abandoned", "order-2", c.ID, script)), automation.OutcomeStarted)
	wantRuns(t, p.report(t, b.key, event("cart_abandoned", "order-1", c.ID, script)), automation.OutcomeDuplicate)
}

// An edit between two events: the run started before it executes the
// version it started with, the one after it the new version.
func TestAutomationEditBetweenEvents(t *testing.T) {
	t.Parallel()
	p := startAutomationPipeline(t, pipelineStart)
	b := newBulkWS(t, p.env)
	before := p.createContact(t, b.bulkKey, map[string]any{"email": rcpt("before")})
	after := p.createContact(t, b.bulkKey, map[string]any{"email": rcpt("after")})
	waitThenSend := func(subject string) automation.Definition {
		d := reminder("cart_abandoned", subject)
		d.Steps = append([]automation.Step{{Type: automation.StepWait, Duration: automation.Duration(time.Hour)}}, d.Steps...)
		return d
	}
	id := activeAutomation(t, p.env, b.id, waitThenSend("Version 1"))
	wantRuns(t, p.report(t, b.key, event("cart_abandoned", "k1", before.ID, nil)), automation.OutcomeStarted)
	if v := editAutomation(t, p.env, b.id, id, waitThenSend("Version 2")); v != 2 {
		t.Fatalf("edited to version %d", v)
	}
	wantRuns(t, p.report(t, b.key, event("cart_abandoned", "k2", after.ID, nil)), automation.OutcomeStarted)
	drainAutomations(t, p.runner)
	p.after(t, time.Hour)
	for to, subject := range map[string]string{before.Email: "Version 1", after.Email: "Version 2"} {
		got := p.ses.sendsTo(to)
		if len(got) != 1 || parseRaw(t, got[0].Raw).Header.Get("Subject") != subject {
			t.Errorf("%s got %d emails, want one %q", to, len(got), subject)
		}
	}
}

// Unsubscribed through the first email's one-click link, or deleted,
// mid-run: the run stops at its next step, says why, and sends no more.
func TestAutomationRunStopsMidRun(t *testing.T) {
	t.Parallel()
	p := startAutomationPipeline(t, pipelineStart)
	b := newBulkWS(t, p.env)
	steps := []automation.Step{
		{Type: automation.StepSend, Subject: "First", HTML: "<p>One</p>"},
		{Type: automation.StepWait, Duration: automation.Duration(time.Hour)},
		{Type: automation.StepSend, Subject: "Second", HTML: "<p>Two</p>"},
	}
	unsub := p.createContact(t, b.bulkKey, map[string]any{"email": rcpt("unsub")})
	gone := p.createContact(t, b.bulkKey, map[string]any{"email": rcpt("gone")})
	id := activeAutomation(t, p.env, b.id, automation.Definition{Name: "Two", Event: "cart_abandoned", Steps: steps})
	runs := map[string]automation.WakeMessage{}
	for _, c := range []contactBody{unsub, gone} {
		res := p.report(t, b.key, event("cart_abandoned", "k-"+c.ID, c.ID, nil))
		wantRuns(t, res, automation.OutcomeStarted)
		runs[c.ID] = automation.WakeMessage{WorkspaceID: b.id, AutomationID: id, RunID: res.Runs[0].RunID}
	}
	drainAutomations(t, p.runner)

	msg, _ := p.raw(t, b.key, automation.EmailID(runOf(t, p.env, runs[unsub.ID]), 0))
	p.page(http.MethodPost, unsubscribeURL(t, msg), "application/x-www-form-urlencoded", []byte(oneClick)).wantPage(t, http.StatusOK, "You are unsubscribed")
	p.call(b.bulkKey, http.MethodDelete, "/api/v1/contacts/"+gone.ID, nil)
	p.after(t, time.Hour)

	for _, want := range []struct {
		c      contactBody
		reason string
	}{{unsub, "the contact unsubscribed"}, {gone, runner.ReasonContactDeleted}} {
		c, reason := want.c, want.reason
		r := runOf(t, p.env, runs[c.ID])
		if r.Status != automation.RunStopped || r.Reason != reason || r.EndedAt == nil {
			t.Errorf("%s: run %+v, want stopped because %q", c.Email, r, reason)
		}
		if got := p.ses.sendsTo(c.Email); len(got) != 1 {
			t.Errorf("%s: %d emails, want only the first", c.Email, len(got))
		}
	}
}

// A step's wake-up delivered twice (the tick's and a redelivery) sends
// its email once.
func TestAutomationRedeliveredStepSendsOnce(t *testing.T) {
	t.Parallel()
	p := startAutomationPipeline(t, pipelineStart)
	b := newBulkWS(t, p.env)
	c := p.createContact(t, b.bulkKey, map[string]any{"email": rcpt("twice")})
	m := startRun(t, p.env, b, c.ID, apikey.Live, nil,
		automation.Step{Type: automation.StepWait, Duration: automation.Duration(time.Hour)},
		automation.Step{Type: automation.StepSend, Subject: "Once", HTML: "<p>Once</p>"})
	drainAutomations(t, p.runner)
	p.clock.Set(p.clock.Now().Add(time.Hour))
	startAgain(t, p.env, m)
	startAgain(t, p.env, m)
	p.after(t, 0)
	if got := p.ses.sendsTo(c.Email); len(got) != 1 {
		t.Errorf("%d sends, want 1", len(got))
	}
	if r := runOf(t, p.env, m); r.Status != automation.RunCompleted || len(r.Log) != 2 {
		t.Errorf("run %+v", r)
	}
}

// A test key's event: the blueprint's hour and day take no time, both
// emails are captured (the console's captured list shows them), never
// SES, nothing tagged, the usage counter unchanged.
func TestAutomationTestKeyEndToEnd(t *testing.T) {
	t.Parallel()
	p := startAutomationPipeline(t, pipelineStart)
	ctx := t.Context()
	b := newBulkWS(t, p.env)
	c := p.createContact(t, b.bulkKey, map[string]any{"email": rcpt("test")})
	a, err := p.automations().Create(ctx, automation.AutomationRequest{WorkspaceID: b.id, Blueprint: "order_placed"})
	if err != nil {
		t.Fatal(err)
	}
	activate(t, p.env, b.id, a.ID)
	res := p.report(t, b.testKey, event("order_placed", "order-1", c.ID, map[string]any{"order_id": "A-1"}))
	wantRuns(t, res, automation.OutcomeStarted)
	drainAutomations(t, p.runner)
	r := runOf(t, p.env, automation.WakeMessage{WorkspaceID: b.id, AutomationID: a.ID, RunID: res.Runs[0].RunID})
	if r.Status != automation.RunCompleted {
		t.Fatalf("test run %+v, want completed at once", r)
	}
	if got := p.ses.sendsTo(c.Email); len(got) != 0 {
		t.Errorf("%d sends through SES, want 0", len(got))
	}
	captured, err := (&email.Captured{Emails: p.store.Emails}).List(ctx, b.id)
	if err != nil {
		t.Fatal(err)
	}
	if len(captured) != 2 || captured[0].Type != "automation" || captured[0].To != c.Email {
		t.Errorf("captured list %+v, want the run's two emails", captured)
	}
	if ct := p.contact(b.id, c.ID); len(ct.Tags) != 0 {
		t.Errorf("test mode tagged %v", ct.Tags)
	}
	if got := p.monthlySent(t, b.id); got != 0 {
		t.Errorf("monthly usage %d, want 0", got)
	}
}

// An 11th automation activated on one event name is refused, naming the
// event; another event name still has room.
func TestAutomationEleventhActivationRefused(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	w := newEventWS(t, e)
	for range automation.MaxActivePerEvent {
		w.listen(t, e, "cart_abandoned")
	}
	id := createAutomation(t, e, w.id, reminder("cart_abandoned", "Eleventh"))
	_, err := e.automations().Activate(t.Context(), w.id, id)
	var refused *automation.ActivationError
	if !errors.As(err, &refused) || len(refused.Problems) != 1 || refused.Problems[0].Path != "event" {
		t.Fatalf("11th activation: %v, want an activation error on event", err)
	}
	w.listen(t, e, "order_placed")
	res := e.report(t, w.live, event("cart_abandoned", "k", w.contact(t, e, "ada@example.com"), nil))
	if res.Matched != automation.MaxActivePerEvent || res.Started != automation.MaxActivePerEvent {
		t.Errorf("one event matched %d, started %d, want %d", res.Matched, res.Started, automation.MaxActivePerEvent)
	}
}
