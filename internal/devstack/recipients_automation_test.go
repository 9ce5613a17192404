package devstack_test

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/automation"
	"github.com/sesame-mail/sesame/internal/emulatortest/inbox"
	"github.com/sesame-mail/sesame/internal/unsubscribe"
)

// An automation's send steps, the first step and one after a wait, read
// as each recipient gets them: each contact's message rendered with its
// own name (escaped as text), the footer, its own unsubscribe link and
// the automation's List-Id; one message per step per recipient.
func TestRecipientsOfAutomationSteps(t *testing.T) {
	t.Parallel()
	k := startKept(t, nil)
	b := newBulkWS(t, k.env)
	names := []string{"Ada", "Bo <b>"}
	var ids, addrs []string
	for _, n := range names {
		addr := rcpt("auto")
		c := k.createContact(t, b.bulkKey, map[string]any{"email": addr, "first_name": n})
		ids, addrs = append(ids, c.ID), append(addrs, addr)
	}
	autoID := activeAutomation(t, k.env, b.id, automation.Definition{Name: "Welcome", Event: "signed_up", Steps: []automation.Step{
		{Type: automation.StepSend, Subject: `Welcome {{ contact.first_name | "there" }}`, HTML: `<p>Hello {{ contact.first_name | "there" }}, step one.</p>`},
		{Type: automation.StepWait, Duration: automation.Duration(time.Hour)},
		{Type: automation.StepSend, Subject: `Still there, {{ contact.first_name | "you" }}?`, HTML: `<p>Hello again {{ contact.first_name | "there" }}.</p>`},
	}})
	for _, id := range ids {
		wantRuns(t, k.report(t, b.key, event("signed_up", uuid.NewString(), id, nil)), automation.OutcomeStarted)
	}
	src := unsubscribe.Source{Kind: unsubscribe.SourceAutomation, ID: autoID}
	escaped := map[string]string{"Ada": "Ada", "Bo <b>": "Bo &lt;b&gt;"}

	drainAutomations(t, k.runner)
	first := k.box(t, b.id)
	var wants []inbox.Want
	for i, n := range names {
		wants = append(wants, k.listWant(t, b, ids[i], addrs[i], "Welcome "+n, "<p>Hello "+escaped[n]+", step one.</p>", src))
	}
	first.Check(t, wants...)

	k.clock.Add(time.Hour + time.Minute)
	for range 3 { // each tick sweeps up to an hour of due minutes
		if err := k.tick(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	drainAutomations(t, k.runner)
	wants = wants[:0]
	for i, n := range names {
		wants = append(wants, k.listWant(t, b, ids[i], addrs[i], "Still there, "+n+"?", "<p>Hello again "+escaped[n]+".</p>", src))
	}
	k.box(t, b.id).Since(first).Check(t, wants...)
}
