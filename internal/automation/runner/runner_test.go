package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/automation"
	"github.com/sesame-mail/sesame/internal/compose"
	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/queue/batch"
)

var (
	sendStep = automation.Step{Type: automation.StepSend, Subject: `Still want {{ event.product_name | "it" }}?`, HTML: `<p>{{ event.product_name }} for {{ contact.first_name | "you" }}</p>`}
	tagStep  = automation.Step{Type: automation.StepTag, Add: []string{"vip"}, Remove: []string{"cold"}}
)

func wait(d time.Duration) automation.Step {
	return automation.Step{Type: automation.StepWait, Duration: automation.Duration(d)}
}

func TestRunnerSendsOnceOnRedelivery(t *testing.T) {
	w := newWorld(t, apikey.Live, sendStep, wait(time.Hour), sendStep)
	w.wake(t)
	// A redelivery of the first step after its email went but before the
	// run advanced (it comes back after the queue's visibility timeout):
	// the claim is found, nothing goes twice.
	w.run.Step, w.run.Status, w.run.Log, w.run.DueAt = 0, automation.RunActive, nil, w.now
	w.now = w.now.Add(ClaimInFlight)
	w.wake(t)
	if len(w.sent) != 1 {
		t.Fatalf("sent %d emails, want 1", len(w.sent))
	}
	e := w.claims[automation.EmailID(w.run, 0)]
	if e.Type != email.TypeAutomation || e.Environment != apikey.Live || e.Subject != "Still want <script>x</script>?" {
		t.Errorf("claimed email = %+v", e)
	}
	body := string(w.sent[0].Raw)
	if !strings.Contains(body, "&lt;script&gt;x&lt;/script&gt; for Ada") || strings.Contains(body, "<script>") && !strings.Contains(body, "Still want <script>") {
		t.Errorf("html not escaped: %s", body)
	}
	if !strings.Contains(body, "https://sesame.test/u/c1") || !strings.Contains(body, "1 Main St") {
		t.Errorf("no footer with the unsubscribe link: %s", body)
	}
	if w.run.Step != 2 || !w.run.DueAt.Equal(w.now.Add(time.Hour)) || len(w.wakeItems) != 2 {
		t.Errorf("run after the wait: step %d due %v wake items %v", w.run.Step, w.run.DueAt, w.wakeItems)
	}
}

func TestRunnerTagsOnceAndCompletes(t *testing.T) {
	w := newWorld(t, apikey.Live, tagStep)
	w.tags["cold"] = true
	w.wake(t)
	w.wake(t) // a duplicate wake-up of an ended run does nothing
	if !w.tags["vip"] || w.tags["cold"] || len(w.tags) != 1 {
		t.Errorf("tags = %v", w.tags)
	}
	if w.run.Status != automation.RunCompleted || w.run.EndedAt == nil || len(w.run.Log) != 1 || w.run.Log[0].Outcome != "tagged" {
		t.Errorf("run = %+v", w.run)
	}
}

// A tag step is the contact's own update: on a contact at the 50-tag cap
// it is refused as a PATCH would be, the run stops saying why, and the
// contact keeps its tags.
func TestRunnerTagStepKeepsTheTagCap(t *testing.T) {
	w := newWorld(t, apikey.Live, tagStep, sendStep)
	for i := range contact.MaxTags {
		w.tags[fmt.Sprintf("t%02d", i)] = true
	}
	w.wake(t)
	if len(w.tags) != contact.MaxTags || w.tags["vip"] {
		t.Errorf("tags = %d, vip %v", len(w.tags), w.tags["vip"])
	}
	if w.run.Status != automation.RunStopped || w.run.Reason != "the contact's tags were not changed: a contact has at most 50 tags" || len(w.sent) != 0 {
		t.Errorf("run = %+v, sent %d", w.run, len(w.sent))
	}
}

func TestRunnerWaits(t *testing.T) {
	tests := map[string]struct {
		d         time.Duration
		queued    []time.Duration
		wakeItems int
	}{
		"a short wait is a delayed message": {10 * time.Minute, []time.Duration{10 * time.Minute}, 0},
		"a long wait is a wake-up item":     {72 * time.Hour, nil, 1},
	}
	for name, tt := range tests {
		w := newWorld(t, apikey.Live, wait(tt.d), tagStep)
		w.wake(t)
		if len(w.wakes) != len(tt.queued) || (len(tt.queued) > 0 && w.wakes[0] != tt.queued[0]) || len(w.wakeItems) != tt.wakeItems {
			t.Errorf("%s: queued %v, wake items %v", name, w.wakes, w.wakeItems)
		}
		if w.run.Step != 1 || len(w.tags) != 0 {
			t.Errorf("%s: ran past the wait: step %d tags %v", name, w.run.Step, w.tags)
		}
		if len(tt.queued) > 0 && (w.wakeMessages[0].Step == nil || *w.wakeMessages[0].Step != 1) {
			t.Errorf("%s: the delayed message is for step %v, want 1", name, w.wakeMessages[0].Step)
		}
		// The start's safety net (for step 0) finds the run past it: no
		// second delayed message, which would run the next step twice.
		queued := len(w.wakes)
		if err := w.runner().Wake(context.Background(), automation.WakeMessage{WorkspaceID: "ws", AutomationID: "auto", RunID: "run-1"}.ForStep(0)); err != nil || len(w.wakes) != queued {
			t.Errorf("%s: the safety net during the wait: %v, queued %v", name, err, w.wakes)
		}
		w.wake(t) // early: nothing, or a delayed message again
		if len(w.tags) != 0 {
			t.Errorf("%s: an early wake-up ran the next step", name)
		}
		w.now = w.now.Add(tt.d)
		w.wake(t)
		if w.run.Status != automation.RunCompleted || !w.tags["vip"] {
			t.Errorf("%s: after the wait: %+v tags %v", name, w.run, w.tags)
		}
	}
}

func TestRunnerStops(t *testing.T) {
	tests := map[string]struct {
		change func(w *world)
		reason string
	}{
		"unsubscribed":  {func(w *world) { w.contact.Subscribed = false }, "the contact unsubscribed"},
		"suppressed":    {func(w *world) { w.suppress = true }, "do-not-send list"},
		"deleted":       {func(w *world) { w.contact = nil }, ReasonContactDeleted},
		"allowance":     {func(w *world) { w.allowance, w.usage = 100, 100 }, "monthly allowance of 100"},
		"test suppress": {func(w *world) { w.suppress, w.run.Environment = true, apikey.Test }, "do-not-send list"},
	}
	for name, tt := range tests {
		w := newWorld(t, apikey.Live, sendStep, tagStep)
		tt.change(w)
		w.wake(t)
		if w.run.Status != automation.RunStopped || !strings.Contains(w.run.Reason, tt.reason) || w.run.Step != 0 || w.run.EndedAt == nil || len(w.tags) != 0 {
			t.Errorf("%s: run = %+v", name, w.run)
		}
		if len(w.sent)+len(w.captured)+len(w.claims) != 0 {
			t.Errorf("%s: an email went: %v %v", name, w.sent, w.captured)
		}
	}
}

func TestRunnerTestMode(t *testing.T) {
	w := newWorld(t, apikey.Test, wait(72*time.Hour), tagStep, sendStep)
	w.allowance, w.usage = 1, 1 // not counted, so not refused
	w.wake(t)
	if w.run.Status != automation.RunCompleted || len(w.run.Log) != 3 {
		t.Fatalf("test run = %+v", w.run)
	}
	if len(w.sent) != 0 || len(w.captured) != 1 || len(w.tags) != 0 || len(w.wakes)+len(w.wakeItems) != 0 {
		t.Errorf("sent %d captured %d tags %v wakes %v %v", len(w.sent), len(w.captured), w.tags, w.wakes, w.wakeItems)
	}
	if e := w.claims[automation.EmailID(w.run, 2)]; e.Environment != apikey.Test || e.Type != email.TypeAutomation {
		t.Errorf("captured email = %+v", e)
	}
	for i, want := range []string{"test mode: the wait took no time", "test mode: nobody tagged", "test mode: captured, not delivered"} {
		if w.run.Log[i].Detail != want {
			t.Errorf("log %d = %+v, want %q", i, w.run.Log[i], want)
		}
	}
}

// A delivery that finds the step's email claimed a moment ago by another
// delivery still sending does not log it sent: it is retried, and the
// run stays at the step until the holder advances it or releases the
// claim (a transient SES error), when the retry sends it.
func TestRunnerStepInFlightIsRetried(t *testing.T) {
	w := newWorld(t, apikey.Live, sendStep, tagStep)
	holder := email.Email{ID: automation.EmailID(w.run, 0), WorkspaceID: "ws", SentAt: w.now.Add(-time.Second)}
	w.claims[holder.ID] = holder
	err := w.runner().Wake(context.Background(), automation.WakeMessage{WorkspaceID: "ws", AutomationID: "auto", RunID: "run-1"})
	if !errors.Is(err, ErrStepInFlight) || w.run.Step != 0 || len(w.run.Log) != 0 || len(w.sent) != 0 {
		t.Fatalf("in flight: %v, run %+v, sent %d", err, w.run, len(w.sent))
	}
	delete(w.claims, holder.ID) // the holder met a transient error and released it
	w.wake(t)
	if len(w.sent) != 1 || w.run.Status != automation.RunCompleted || w.run.Log[0].Outcome != "sent" {
		t.Errorf("after the release: sent %d, run %+v", len(w.sent), w.run)
	}
}

// faultyRuns is the run store while the table does not answer.
type faultyRuns struct{ fakeRuns }

func (faultyRuns) GetRun(context.Context, string, string, string) (automation.Run, error) {
	return automation.Run{}, errors.New("store paused")
}

// postponements records the waits set on messages.
type postponements map[string]time.Duration

func (p postponements) Postpone(_ context.Context, receipt string, d time.Duration) error {
	p[receipt] = d
	return nil
}

// A wake-up that meets a store fault comes back after a short wait
// growing with its receives, not the queue's visibility timeout.
func TestRunnerFaultRetriesWithinSeconds(t *testing.T) {
	w := newWorld(t, apikey.Live, automation.Step{Type: automation.StepSend})
	r := w.runner()
	r.Runs = faultyRuns{fakeRuns{w}}
	later := postponements{}
	r.Backoff = batch.Backoff{Later: later, Ceiling: 2 * time.Minute}
	body, _ := json.Marshal(automation.WakeMessage{WorkspaceID: "ws", AutomationID: "auto", RunID: "run-1"})
	msgs := []batch.Message{{ID: "m1", Body: string(body), Receipt: "r1", ReceiveCount: 1}, {ID: "m2", Body: string(body), Receipt: "r2", ReceiveCount: 9}}
	if retry := r.Handle(t.Context(), msgs); !slices.Equal(retry, []string{"m1", "m2"}) {
		t.Fatalf("retry %v", retry)
	}
	if d := later["r1"]; d < time.Second || d > 2*time.Second {
		t.Errorf("first receive waits %s, want 1-2 s", d)
	}
	if d := later["r2"]; d < time.Minute || d > 2*time.Minute {
		t.Errorf("ninth receive waits %s, want the 1-2 min ceiling's range", d)
	}
}

// A send step whose email cannot go ends the run as failed, at that
// step, with the reason: never completed, and no later step runs.
func TestRunnerSendStepFails(t *testing.T) {
	tests := map[string]struct {
		change func(w *world)
		reason string
		claim  bool // the email was claimed, and is recorded as failed
	}{
		// Checked as POST /send checks it: a domain unverified since the
		// activation does not send.
		"sender's domain unverified": {func(w *world) { w.verified = nil }, "the default sender cannot send: shop@example.com is not on a verified domain", false},
		"provider refuses": {func(w *world) {
			w.refuse = fail.Errorf(fail.KindInvalid, "", "", "Email address is not verified")
		}, "rejected by the email provider: Email address is not verified", true},
		"message does not build": {func(w *world) {
			w.unbuildable = fmt.Errorf("%w: header line too long", compose.ErrInvalid)
		}, "not sent: compose: invalid message: header line too long", true},
	}
	for name, tt := range tests {
		w := newWorld(t, apikey.Live, sendStep, tagStep)
		tt.change(w)
		w.wake(t)
		if w.run.Status != automation.RunFailed || !strings.HasPrefix(w.run.Reason, tt.reason) || w.run.Step != 0 || w.run.EndedAt == nil || len(w.tags) != 0 {
			t.Errorf("%s: run = %+v", name, w.run)
		}
		if l := w.run.Log; len(l) != 1 || l[0].Outcome != "failed" || l[0].Detail != w.run.Reason {
			t.Errorf("%s: log = %+v", name, l)
		}
		if len(w.sent) != 0 || (len(w.claims) == 1) != tt.claim {
			t.Errorf("%s: sent %v, claims %v", name, w.sent, w.claims)
		}
	}
}

// A contact's name with a line break in it reaches the subject as
// spaces: the email goes, with one header line, and the run completes.
func TestRunnerSubjectValueWithLineBreak(t *testing.T) {
	w := newWorld(t, apikey.Live, automation.Step{Type: automation.StepSend, Subject: `Hi {{ contact.first_name | "there" }}`, HTML: `<p>Hi</p>`})
	w.contact.FirstName = new("Ann\r\nBcc: all@example.com")
	w.wake(t)
	if w.run.Status != automation.RunCompleted || len(w.sent) != 1 {
		t.Fatalf("run = %+v, sent %d", w.run, len(w.sent))
	}
	subject, _, _ := strings.Cut(string(w.sent[0].Raw), "|")
	if subject != "Hi Ann  Bcc: all@example.com" || w.claims[automation.EmailID(w.run, 0)].Subject != subject {
		t.Errorf("subject %q, stored %q", subject, w.claims[automation.EmailID(w.run, 0)].Subject)
	}
}
