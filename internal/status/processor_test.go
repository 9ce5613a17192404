package status_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"testing"

	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/event"
	"github.com/sesame-mail/sesame/internal/queue/batch"
	"github.com/sesame-mail/sesame/internal/status"
)

// fakeStore is a status.Store made of functions; a nil function fails the
// test when called. Without peekEmail, an eventual read answers as getEmail.
type fakeStore struct {
	t         *testing.T
	getEmail  func(ws, id string) (email.Email, error)
	peekEmail func(ws, id string) (email.Email, error)
	apply     func(c status.Change) error

	mu      sync.Mutex
	gets    int // reads of either kind
	peeks   int // eventually consistent reads
	applied []status.Change
	counted []status.Tally
}

func (f *fakeStore) Count(_ context.Context, t status.Tally) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.counted = append(f.counted, t)
	return nil
}

func (f *fakeStore) GetEmail(_ context.Context, ws, id string) (email.Email, error) {
	f.mu.Lock()
	f.gets++
	f.mu.Unlock()
	if f.getEmail == nil {
		f.t.Errorf("GetEmail(%s, %s) called", ws, id)
		return email.Email{}, errors.New("unexpected GetEmail")
	}
	return f.getEmail(ws, id)
}

func (f *fakeStore) PeekEmail(ctx context.Context, ws, id string) (email.Email, error) {
	f.mu.Lock()
	f.peeks++
	f.mu.Unlock()
	if f.peekEmail == nil {
		return f.GetEmail(ctx, ws, id)
	}
	f.mu.Lock()
	f.gets++
	f.mu.Unlock()
	return f.peekEmail(ws, id)
}

func (f *fakeStore) Apply(_ context.Context, c status.Change) error {
	f.mu.Lock()
	f.applied = append(f.applied, c)
	f.mu.Unlock()
	if f.apply == nil {
		f.t.Errorf("Apply(%+v) called", c)
		return errors.New("unexpected Apply")
	}
	return f.apply(c)
}

// fakePublisher records what is published; publish, when set, answers.
type fakePublisher struct {
	publish func(e event.Event) error

	mu     sync.Mutex
	events []event.Event
}

func (f *fakePublisher) Publish(_ context.Context, events ...event.Event) error {
	f.mu.Lock()
	f.events = append(f.events, events...)
	publish := f.publish
	f.mu.Unlock()
	for _, e := range events {
		if publish == nil {
			break
		}
		if err := publish(e); err != nil {
			return err
		}
	}
	return nil
}

func (f *fakePublisher) published() []event.Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.events)
}

func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

// messages is a batch of bodies with message ids m1, m2, …
func messages(bodies ...[]byte) []batch.Message {
	var msgs []batch.Message
	for i, body := range bodies {
		msgs = append(msgs, batch.Message{ID: fmt.Sprintf("m%d", i+1), Body: string(body)})
	}
	return msgs
}

func handle(t *testing.T, p *status.Processor, bodies ...[]byte) []string {
	t.Helper()
	return append([]string{}, p.Handle(t.Context(), messages(bodies...))...)
}

func TestHandleDropsWhatCanNeverApply(t *testing.T) {
	for name, tc := range badBodies(t) {
		t.Run(name, func(t *testing.T) {
			store := &fakeStore{t: t} // any call fails the test
			pub := &fakePublisher{}
			p := &status.Processor{Store: store, Publisher: pub, Logger: quiet()}
			if failed := handle(t, p, tc.body); len(failed) != 0 {
				t.Errorf("batch item failures %v: retrying cannot help, the message must be dropped", failed)
			}
			if len(pub.published()) != 0 {
				t.Error("published an event")
			}
		})
	}
}

func TestHandleReportsOnlyFaults(t *testing.T) {
	const faultyID = "01937f4e-0000-7000-8000-0000000000ff"
	const unknownID = "01937f4e-0000-7000-8000-00000000000e"
	store := &fakeStore{t: t,
		getEmail: func(ws, id string) (email.Email, error) {
			switch id {
			case unknownID:
				return email.Email{}, email.ErrNotFound
			case faultyID:
				return sentEmail(func(e *email.Email) { e.ID = faultyID }), nil
			}
			return sentEmail(), nil
		},
		apply: func(c status.Change) error {
			if c.EmailID == faultyID {
				return errors.New("ProvisionedThroughputExceededException")
			}
			return nil
		},
	}
	pub := &fakePublisher{}
	p := &status.Processor{Store: store, Publisher: pub, Logger: quiet()}
	failed := handle(t, p,
		fixture(t, "delivery"), // m1 applies
		[]byte("{not json"),    // m2 dropped
		fixtureFor(t, "delivery", wsID, faultyID, recipient), // m3 fault: retry
		fixtureFor(t, "open", wsID, unknownID, recipient),    // m4 unknown email: dropped
		fixture(t, "delivery-delay"),                         // m5 nothing to do
		fixture(t, "send"),                                   // m6 no longer published by SES: nothing to do
	)
	if !slices.Equal(failed, []string{"m3"}) {
		t.Errorf("batch item failures = %v, want exactly [m3]", failed)
	}
	got := pub.published()
	if len(got) != 1 || got[0].Type != event.Delivered || got[0].Data.ID != emailID {
		t.Errorf("published %+v, want the one delivery", got)
	}
	if n := len(store.applied); n != 2 {
		t.Errorf("%d changes applied, want 2 (delivery, the faulty one)", n)
	}
}

// One message at a time: what Handle reads, writes, publishes and retries.
func TestHandleOneMessage(t *testing.T) {
	stale := func(n int) func(status.Change) error {
		calls := 0
		return func(status.Change) error {
			calls++
			if calls <= n {
				return status.ErrStale
			}
			return nil
		}
	}
	cases := map[string]struct {
		fixture   string
		getErr    error
		apply     func(status.Change) error
		publish   func(event.Event) error
		wantErr   bool
		wantGets  int
		wantApply int
		wantPubs  int
	}{
		"applied and published":      {fixture: "delivery", apply: stale(0), wantGets: 1, wantApply: 1, wantPubs: 1},
		"send: nothing to do":        {fixture: "send", wantGets: 1},
		"opt-out: applied, no feed":  {fixture: "click-unsubscribe", apply: stale(0), wantGets: 1, wantApply: 1, wantPubs: 0},
		"nothing to do":              {fixture: "delivery-delay", wantGets: 1},
		"unknown email dropped":      {fixture: "open", getErr: email.ErrNotFound, wantGets: 2}, // eventual, then strong
		"read fault retried":         {fixture: "open", getErr: errors.New("connection reset"), wantErr: true, wantGets: 1},
		"write fault retried":        {fixture: "open", apply: func(status.Change) error { return errors.New("throttled") }, wantErr: true, wantGets: 1, wantApply: 1},
		"stale: re-read and re-plan": {fixture: "click", apply: stale(2), wantGets: 3, wantApply: 3, wantPubs: 1},
		"stale five times: retried":  {fixture: "click", apply: stale(99), wantErr: true, wantGets: 5, wantApply: 5},
		// The first try may have died between its write and its fan-out:
		// the duplicate publishes again (deliveries are deduplicated).
		"duplicate published again": {fixture: "delivery", apply: func(status.Change) error { return status.ErrDuplicate }, wantGets: 1, wantApply: 1, wantPubs: 1},
		"duplicate opt-out":         {fixture: "click-unsubscribe", apply: func(status.Change) error { return status.ErrDuplicate }, wantGets: 1, wantApply: 1},
		"publish fault retried":     {fixture: "complaint", apply: stale(0), publish: func(event.Event) error { return errors.New("sqs down") }, wantErr: true, wantGets: 1, wantApply: 1, wantPubs: 1},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			store := &fakeStore{t: t, getEmail: func(ws, id string) (email.Email, error) {
				if ws != wsID || id != emailID {
					t.Errorf("GetEmail(%s, %s), want the tagged workspace and email", ws, id)
				}
				return sentEmail(), tc.getErr
			}, apply: tc.apply}
			pub := &fakePublisher{publish: tc.publish}
			p := &status.Processor{Store: store, Publisher: pub, Logger: quiet()}
			retry := handle(t, p, fixture(t, tc.fixture))
			if (len(retry) > 0) != tc.wantErr {
				t.Errorf("retry = %v, want retried %v", retry, tc.wantErr)
			}
			if store.gets != tc.wantGets || len(store.applied) != tc.wantApply || len(pub.published()) != tc.wantPubs {
				t.Errorf("gets %d, applies %d, publishes %d; want %d, %d, %d",
					store.gets, len(store.applied), len(pub.published()), tc.wantGets, tc.wantApply, tc.wantPubs)
			}
			for _, e := range pub.published() {
				if c := store.applied[len(store.applied)-1]; c.Event == nil || e.ID != c.Event.ID {
					t.Errorf("published %s, not the applied event", e.ID)
				}
			}
		})
	}
}

// Without a publisher (no webhook fan-out configured) events still apply.
func TestHandleWithoutPublisher(t *testing.T) {
	store := &fakeStore{t: t, getEmail: func(string, string) (email.Email, error) { return sentEmail(), nil },
		apply: func(status.Change) error { return nil }}
	p := &status.Processor{Store: store}
	for _, name := range []string{"delivery", "open", "click"} {
		if retry := handle(t, p, fixture(t, name)); len(retry) > 0 {
			t.Errorf("%s: retried %v", name, retry)
		}
	}
	if len(store.applied) != 3 {
		t.Errorf("%d changes applied, want 3", len(store.applied))
	}
}

// The first read of an event's email is eventually consistent (half the
// read units); a miss or a stale plan reads again strongly, so an email
// just written is found and a stale version never applies.
func TestFirstReadIsEventual(t *testing.T) {
	stale := errors.New("stale version")
	cases := map[string]struct {
		peek       func(ws, id string) (email.Email, error)
		apply      func(calls int) error
		wantPeeks  int
		wantStrong int
		wantPubs   int
	}{
		"applied on the eventual read": {wantPeeks: 1, wantPubs: 1},
		"missed by the eventual read, found strongly": {
			peek: func(string, string) (email.Email, error) { return email.Email{}, email.ErrNotFound }, wantPeeks: 1, wantStrong: 1, wantPubs: 1,
		},
		"eventual read fault: retried by the queue": {
			peek:      func(string, string) (email.Email, error) { return sentEmail(), stale },
			wantPeeks: 1, wantStrong: 0, // a read fault is retried by the queue, not here
		},
		"stale plan from the eventual read re-read strongly": {
			apply:     func(calls int) error { return map[bool]error{true: status.ErrStale}[calls == 1] },
			wantPeeks: 1, wantStrong: 1, wantPubs: 1,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			calls := 0
			store := &fakeStore{t: t, peekEmail: tc.peek,
				getEmail: func(string, string) (email.Email, error) { return sentEmail(), nil },
				apply: func(status.Change) error {
					calls++
					if tc.apply == nil {
						return nil
					}
					return tc.apply(calls)
				}}
			if tc.peek == nil {
				store.peekEmail = func(string, string) (email.Email, error) { return sentEmail(), nil }
			}
			pub := &fakePublisher{}
			p := &status.Processor{Store: store, Publisher: pub, Logger: quiet()}
			handle(t, p, fixture(t, "delivery"))
			if strong := store.gets - store.peeks; store.peeks != tc.wantPeeks || strong != tc.wantStrong || len(pub.published()) != tc.wantPubs {
				t.Errorf("eventual reads %d, strong reads %d, publishes %d; want %d, %d, %d",
					store.peeks, strong, len(pub.published()), tc.wantPeeks, tc.wantStrong, tc.wantPubs)
			}
		})
	}
}
