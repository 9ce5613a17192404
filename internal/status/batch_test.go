package status_test

import (
	"testing"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/email"
)

// sameWorkspace stores n more sent emails in e's workspace.
func (w *world) sameWorkspace(t *testing.T, e email.Email, n int) []email.Email {
	t.Helper()
	out := []email.Email{e}
	for range n {
		more := e
		more.ID = uuid.Must(uuid.NewV7()).String()
		if err := w.store.Emails.PutEmail(t.Context(), more); err != nil {
			t.Fatal(err)
		}
		out = append(out, more)
	}
	return out
}

// A batch of events of one workspace and day writes its daily counters
// once, an ADD of the batch's sums; the emails its Delivery events end
// add to the monthly usage once. Redelivered, the batch counts nothing.
func TestBatchCountsOnceAWorkspace(t *testing.T) {
	const n = 6
	w := newWorld(t)
	emails := w.sameWorkspace(t, w.newEmail(t), n-1)
	var bodies [][]byte
	for _, e := range emails {
		bodies = append(bodies, body(t, "delivery", e), body(t, "open", e))
	}
	w.rec.Reset()
	if failed := handle(t, w.p, bodies...); len(failed) != 0 {
		t.Fatalf("failed: %v", failed)
	}
	// Per email: the email's status on each event (UpdateItem), two feed
	// items (PutItem). Per batch: the daily counters and the monthly usage
	// (UpdateItem).
	if got, want := w.rec.Calls("UpdateItem"), 2*n+2; got != want {
		t.Errorf("%d UpdateItem calls, want %d: two an email, one for the daily counters, one for the usage", got, want)
	}
	if got := w.rec.Calls("PutItem"); got != 2*n {
		t.Errorf("%d PutItem calls, want %d (two feed items an email)", got, 2*n)
	}
	wantCounts := func(when string) {
		t.Helper()
		s := w.snapshot(t, emails[0])
		day := s.Metrics["2026-11-22"]
		if day["transactional_live_delivered"] != n || day["transactional_live_sent"] != n || day["transactional_live_opened"] != n || s.Usage != n {
			t.Errorf("%s: counters %v, usage %d; want delivered, sent and opened %d, usage %d", when, day, s.Usage, n, n)
		}
	}
	wantCounts("first delivery")

	w.rec.Reset()
	if failed := handleReceived(t, w.p, 2, bodies...); len(failed) != 0 {
		t.Fatalf("redelivered: failed %v", failed)
	}
	if got := w.rec.Calls("UpdateItem"); got != 0 {
		t.Errorf("redelivered batch: %d UpdateItem calls, want none (every event is a duplicate)", got)
	}
	wantCounts("redelivered")
	published := w.pub.published()
	if len(published) != 4*n {
		t.Fatalf("%d events published, want each delivery and open twice (%d): a redelivery may follow a lost fan-out", len(published), 4*n)
	}
	for i, ev := range published {
		if ev.Again != (i >= 2*n) {
			t.Errorf("event %d published with Again %v, want it only on the republished ones (the dispatcher checks those for a delivery)", i, ev.Again)
		}
	}
}
