package devstack_test

import (
	"bytes"
	"net/http"
	"net/mail"
	"strings"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/api"
	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/automation"
	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
	"github.com/sesame-mail/sesame/internal/routes"
)

var cartSteps = []automation.Step{
	{Type: automation.StepSend, Subject: `Your {{ event.product_name | "items" }}`, HTML: `<p>Hi {{ contact.first_name | "there" }}, {{ event.product_name }} waits.</p>`},
	{Type: automation.StepWait, Duration: automation.Duration(72 * time.Hour)},
	{Type: automation.StepTag, Add: []string{"reminded"}},
	{Type: automation.StepSend, Subject: `Last call`, HTML: `<p>Still there?</p>`},
}

// A run sends, waits three days (a wake-up item the tick finds once the
// clock moved), tags and sends again: each email once, type automation,
// with the footer and one-click unsubscribe, listed by GET /emails; a
// redelivered wake-up sends nothing twice.
func TestAutomationRunWaitsThreeDaysThroughTheTick(t *testing.T) {
	t.Parallel()
	clock := dynamotest.NewClock(time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC))
	e, q := startAutomations(t, clock)
	b := newBulkWS(t, e)
	c := e.createContact(t, b.bulkKey, map[string]any{"email": rcpt("ada"), "first_name": "Ada"})
	m := startRun(t, e, b.id, c.ID, apikey.Live, map[string]string{"product_name": "<script>alert(1)</script>"}, cartSteps...)
	drainAutomations(t, q)

	r := runOf(t, e, m)
	if r.Status != automation.RunActive || r.Step != 2 || !r.DueAt.Equal(clock.Now().Add(72*time.Hour)) {
		t.Fatalf("after the first send: %+v", r)
	}
	if got := e.ses.sendsTo(c.Email); len(got) != 1 {
		t.Fatalf("%d sends, want 1", len(got))
	}
	tick := api.Ticks(e.deps)[routes.AutomationTick]
	// A redelivered wake-up before the wait ends: nothing.
	startAgain(t, e, m)
	drainAutomations(t, q)
	clock.Set(clock.Now().Add(71 * time.Hour))
	if err := tick(t.Context()); err != nil {
		t.Fatal(err)
	}
	drainAutomations(t, q)
	if r := runOf(t, e, m); r.Step != 2 || len(e.ses.sendsTo(c.Email)) != 1 {
		t.Fatalf("ran before the wait ended: %+v", r)
	}
	clock.Set(clock.Now().Add(time.Hour))
	if err := tick(t.Context()); err != nil {
		t.Fatal(err)
	}
	drainAutomations(t, q)
	r = runOf(t, e, m)
	if r.Status != automation.RunCompleted || len(r.Log) != 4 || r.EndedAt == nil {
		t.Fatalf("after the wait: %+v", r)
	}
	if got := e.ses.sendsTo(c.Email); len(got) != 2 {
		t.Errorf("%d sends, want 2", len(got))
	}
	ct, err := e.store.Contacts.GetContact(t.Context(), b.id, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(ct.Tags) != 1 || ct.Tags[0] != "reminded" {
		t.Errorf("tags = %v", ct.Tags)
	}

	var list listBody
	e.get(bearer(b.key), "/api/v1/emails?type=automation").decode(t, http.StatusOK, &list)
	if len(list.Data) != 2 {
		t.Fatalf("GET /emails?type=automation: %d emails, want 2", len(list.Data))
	}
	first := e.get(bearer(b.key), "/dev/emails/"+automation.EmailID(r, 0)+"/raw")
	msg, err := mail.ReadMessage(bytes.NewReader(first.body))
	if err != nil {
		t.Fatalf("raw: %d %v %s", first.status, err, first.body)
	}
	if !strings.HasPrefix(msg.Header.Get("List-Unsubscribe"), "<"+e.url) || msg.Header.Get("List-Unsubscribe-Post") != "List-Unsubscribe=One-Click" {
		t.Errorf("headers: %v", msg.Header)
	}
	if !bytes.Contains(first.body, []byte("Springfield")) || !bytes.Contains(first.body, []byte("&lt;script&gt;")) || bytes.Contains(first.body, []byte("<p>Hi Ada, <script>")) {
		t.Errorf("no footer, or the payload not escaped:\n%s", first.body)
	}
}

// A test key's run: the wait takes no time, the email is captured (listed
// as test, never SES), the contact is not tagged.
func TestAutomationRunInTestMode(t *testing.T) {
	t.Parallel()
	clock := dynamotest.NewClock(time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC))
	e, q := startAutomations(t, clock)
	b := newBulkWS(t, e)
	c := e.createContact(t, b.bulkKey, map[string]any{"email": rcpt("ada")})
	m := startRun(t, e, b.id, c.ID, apikey.Test, nil, cartSteps...)
	drainAutomations(t, q)
	r := runOf(t, e, m)
	if r.Status != automation.RunCompleted {
		t.Fatalf("test run: %+v", r)
	}
	if got := e.ses.sendsTo(c.Email); len(got) != 0 {
		t.Errorf("%d sends through SES, want 0", len(got))
	}
	em, err := e.store.Emails.GetEmail(t.Context(), b.id, automation.EmailID(r, 3))
	if err != nil || em.Environment != apikey.Test {
		t.Errorf("captured email %+v, %v", em, err)
	}
	ct, err := e.store.Contacts.GetContact(t.Context(), b.id, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(ct.Tags) != 0 {
		t.Errorf("test mode tagged: %v", ct.Tags)
	}
}

// startAgain puts a duplicate wake-up of m on the queue.
func startAgain(t *testing.T, e *env, m automation.WakeMessage) {
	t.Helper()
	e.queues.Send(t, "automations", `{"workspace_id":"`+m.WorkspaceID+`","automation_id":"`+m.AutomationID+`","run_id":"`+m.RunID+`"}`)
}
