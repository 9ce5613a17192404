package automation

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/fail"
)

func ptr(s string) *string { return &s }

func TestCheckEvent(t *testing.T) {
	good := EventInput{Name: ptr("cart_abandoned"), Key: ptr("order-1"), Contact: &ContactRef{ID: "c"}}
	with := func(f func(*EventInput)) EventInput { in := good; f(&in); return in }
	tests := map[string]struct {
		in          EventInput
		kind        fail.Kind
		param, text string
	}{
		"no event":          {with(func(in *EventInput) { in.Name = nil }), fail.KindMissing, "event", ""},
		"no event_key":      {with(func(in *EventInput) { in.Key = nil }), fail.KindMissing, "event_key", ""},
		"no contact":        {with(func(in *EventInput) { in.Contact = nil }), fail.KindMissing, "contact", ""},
		"spaces":            {with(func(in *EventInput) { in.Name = ptr("Cart Abandoned") }), fail.KindInvalid, "event", "no spaces"},
		"capitals":          {with(func(in *EventInput) { in.Name = ptr("CART_ABANDONED") }), fail.KindInvalid, "event", `"cart_abandoned"`},
		"201 characters":    {with(func(in *EventInput) { in.Key = ptr(strings.Repeat("é", 201)) }), fail.KindInvalid, "event_key", "200"},
		"both id and email": {with(func(in *EventInput) { in.Contact = &ContactRef{ID: "c", Email: "a@b.c"} }), fail.KindInvalid, "contact", "exactly one"},
		"array payload":     {with(func(in *EventInput) { in.Payload = []byte(`[1]`) }), fail.KindInvalid, "payload", "object"},
		"8 KB + 1":          {with(func(in *EventInput) { in.Payload = []byte(`{"v":"` + strings.Repeat("x", MaxPayloadBytes-7) + `"}`) }), fail.KindInvalid, "payload", "8192"},
	}
	for name, tt := range tests {
		_, err := CheckEvent(tt.in)
		e, ok := fail.As(err)
		if !ok || e.Kind != tt.kind || e.Param != tt.param || !strings.Contains(e.Message, tt.text) {
			t.Errorf("%s: %v, want %v on %s saying %q", name, err, tt.kind, tt.param, tt.text)
		}
	}
	ev, err := CheckEvent(with(func(in *EventInput) {
		in.Payload = []byte(`{"s":"<b>","n":19.90,"b":false,"o":{"x":1},"a":[1],"z":null}`)
		in.Key = ptr(strings.Repeat("é", 200))
	}))
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"s": "<b>", "n": "19.90", "b": "false"}; len(ev.Payload) != len(want) ||
		ev.Payload["s"] != want["s"] || ev.Payload["n"] != want["n"] || ev.Payload["b"] != want["b"] {
		t.Errorf("payload %v, want %v", ev.Payload, want)
	}
}

// fakeStore is a TriggerStore of function fields.
type fakeStore struct {
	contact   func(ContactRef) (string, error)
	listeners []Listener
	start     func(Run) (RunOutcome, error)
}

func (f fakeStore) EventContact(_ context.Context, _ string, ref ContactRef) (string, error) {
	return f.contact(ref)
}
func (f fakeStore) Listeners(context.Context, string, string) ([]Listener, error) {
	return f.listeners, nil
}
func (f fakeStore) StartRun(_ context.Context, r Run) (RunOutcome, error) { return f.start(r) }

type failingWaker struct{ err error }

func (q failingWaker) EnqueueAll(context.Context, [][]byte) error { return q.err }

func TestTriggerReport(t *testing.T) {
	now := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	ev := Event{Name: "cart_abandoned", Key: "k", Contact: ContactRef{Email: "a@b.c"}, Payload: map[string]string{"x": "1"}}
	outcomes := map[string]RunOutcome{"a1": OutcomeStarted, "a2": OutcomeDuplicate, "a3": OutcomeRateLimited}
	var ids atomic.Int32
	newTrigger := func(s fakeStore, q failingWaker) *Trigger {
		return &Trigger{Store: s, Queue: q, Now: func() time.Time { return now },
			NewID:  func() (string, error) { return fmt.Sprint("run-", ids.Add(1)), nil },
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	}
	store := fakeStore{
		contact:   func(ContactRef) (string, error) { return "c1", nil },
		listeners: []Listener{{"a1", 2}, {"a2", 1}, {"a3", 1}},
		start: func(r Run) (RunOutcome, error) {
			if r.ContactID != "c1" || r.Status != RunActive || !r.DueAt.Equal(now) || r.Environment != apikey.Test || r.Payload["x"] != "1" {
				t.Errorf("run %+v", r)
			}
			return outcomes[r.AutomationID], nil
		},
	}
	// A failed enqueue is not the caller's: the runs exist, the tick
	// wakes them.
	res, err := newTrigger(store, failingWaker{err: errors.New("sqs down")}).Report(t.Context(), "ws", apikey.Test, ev)
	if err != nil {
		t.Fatal(err)
	}
	if res.Matched != 3 || res.Started != 1 || res.ContactID != "c1" || res.Message != "" {
		t.Errorf("result %+v", res)
	}
	for _, r := range res.Runs {
		if r.Status != outcomes[r.AutomationID] || (r.RunID != "") != (r.Status == OutcomeStarted) {
			t.Errorf("run result %+v", r)
		}
	}

	store.listeners = nil
	res, err = newTrigger(store, failingWaker{}).Report(t.Context(), "ws", apikey.Live, ev)
	if err != nil || res.Matched != 0 || res.Runs == nil || res.Message != NothingListens {
		t.Errorf("nothing listening: %+v, %v", res, err)
	}

	store.contact = func(ContactRef) (string, error) { return "", ErrContactNotFound }
	_, err = newTrigger(store, failingWaker{}).Report(t.Context(), "ws", apikey.Live, ev)
	if e, ok := fail.As(err); !ok || e.Kind != fail.KindNotFound {
		t.Errorf("unknown contact: %v, want not found", err)
	}

	store.contact = func(ContactRef) (string, error) { return "c1", nil }
	store.listeners = []Listener{{"a1", 1}}
	store.start = func(Run) (RunOutcome, error) { return "", errors.New("store down") }
	if _, err := newTrigger(store, failingWaker{}).Report(t.Context(), "ws", apikey.Live, ev); err == nil {
		t.Error("a failed start answered")
	}
}
