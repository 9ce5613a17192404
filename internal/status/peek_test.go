package status_test

import (
	"context"
	"github.com/sesame-mail/sesame/internal/dynamo/statusdb"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/event"
	"github.com/sesame-mail/sesame/internal/status"
	"testing"
)

// lagging is the real store whose eventually consistent read answers as
// a replica that has not caught up: the email as it was (or none).
type lagging struct {
	*statusdb.Statuses
	old   email.Email
	found bool
}

func (l lagging) PeekEmail(context.Context, string, string) (email.Email, error) {
	if !l.found {
		return email.Email{}, email.ErrNotFound
	}
	return l.old, nil
}

// An eventual read that lags never applies its stale plan: the email's
// conditions send the event back to a strong read, and every event is
// recorded and counted once, as with strong reads alone.
func TestLaggingEventualReadAppliesOnce(t *testing.T) {
	w := newWorld(t)
	e := w.newEmail(t)
	if failed := handle(t, w.p, body(t, "delivery", e)); len(failed) != 0 {
		t.Fatalf("delivery failed: %v", failed)
	}
	// The open is planned first from the email as sent, before its
	// delivery: the update's condition (status sent) fails.
	p := &status.Processor{Store: lagging{Statuses: w.store.Statuses, old: e, found: true}, Publisher: w.pub, Logger: quiet()}
	if failed := handle(t, p, body(t, "open", e), body(t, "delivery", e)); len(failed) != 0 {
		t.Fatalf("open failed: %v", failed)
	}
	s := w.snapshot(t, e)
	if s.Email.Status != email.StatusOpened || s.Email.DeliveredAt == nil || s.Email.OpenedAt == nil {
		t.Errorf("email %s, delivered %s, opened %s; want opened, both times set", s.Email.Status, timeOf(s.Email.DeliveredAt), timeOf(s.Email.OpenedAt))
	}
	day := s.Metrics["2026-11-22"]
	if day["transactional_live_delivered"] != 1 || day["transactional_live_sent"] != 1 || day["transactional_live_opened"] != 1 || s.Usage != 1 {
		t.Errorf("counters %v, usage %d; want delivered, sent, opened and usage once", day, s.Usage)
	}
	types := map[event.Type]int{}
	for _, f := range s.Feed {
		types[f.Type]++
	}
	if len(s.Feed) != 2 || types[event.Delivered] != 1 || types[event.Opened] != 1 {
		t.Errorf("feed %v, want one delivered and one opened item", types)
	}
	if opened := s.Feed[0]; opened.Type == event.Opened && (opened.Data == nil || opened.Data.DeliveredAt == nil) {
		t.Errorf("the opened item shows the email before its delivery: %+v", opened.Data)
	}
}

// An email the send path has just written may be missing from an eventual
// read: the event reads it strongly before it is dropped as unknown.
func TestEventualMissReadsStrongly(t *testing.T) {
	w := newWorld(t)
	e := w.newEmail(t)
	p := &status.Processor{Store: lagging{Statuses: w.store.Statuses}, Publisher: w.pub, Logger: quiet()}
	if failed := handle(t, p, body(t, "delivery", e)); len(failed) != 0 {
		t.Fatalf("delivery failed: %v", failed)
	}
	w.wantDeliveredOnce(t, e, w.pub)
}
