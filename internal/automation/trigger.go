package automation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/fail"
)

// TriggerStore is what the event route reads and writes: the contact the
// event names, the automations listening for it, and each run's start.
type TriggerStore interface {
	// EventContact is the id of the workspace's contact ref names;
	// ErrContactNotFound when it has none.
	EventContact(ctx context.Context, workspaceID string, ref ContactRef) (string, error)
	// Listeners are the active automations listening for event.
	Listeners(ctx context.Context, workspaceID, event string) ([]Listener, error)
	// StartRun claims the run's event_key and the contact's live run of
	// its automation, counts it in the automation's minute and writes it,
	// all or nothing: OutcomeDuplicate when a claim is taken,
	// OutcomeRateLimited when only the minute is full (nothing written).
	StartRun(ctx context.Context, r Run) (RunOutcome, error)
}

// ErrContactNotFound is an event's contact that is absent or foreign.
var ErrContactNotFound = errors.New("contact not found")

// Trigger starts the runs of one reported event.
type Trigger struct {
	Store TriggerStore
	Queue WakeQueue
	// NewID makes a run id (a UUIDv7, so runs list newest first).
	NewID  func() (string, error)
	Now    func() time.Time
	Logger *slog.Logger
}

// Report starts a run of every active automation listening for ev, for
// the workspace and key environment of the caller. An automation that
// would run twice for the key or the contact answers duplicate, one over
// its minute rate_limited; neither is an error. The contact is resolved
// and the listeners read at once (two reads, one round trip's wait); each
// listener's start is one transaction, all of them at once.
func (t *Trigger) Report(ctx context.Context, workspaceID string, env apikey.Environment, ev Event) (EventResult, error) {
	var contactID string
	var listeners []Listener
	var contactErr, listenErr error
	var wg sync.WaitGroup
	wg.Go(func() { contactID, contactErr = t.Store.EventContact(ctx, workspaceID, ev.Contact) })
	wg.Go(func() { listeners, listenErr = t.Store.Listeners(ctx, workspaceID, ev.Name) })
	wg.Wait()
	switch {
	case errors.Is(contactErr, ErrContactNotFound):
		return EventResult{}, fail.NotFound("contact")
	case contactErr != nil:
		return EventResult{}, fmt.Errorf("resolve the event's contact: %w", contactErr)
	case listenErr != nil:
		return EventResult{}, fmt.Errorf("read the event's listeners: %w", listenErr)
	}
	res := EventResult{Event: ev.Name, ContactID: contactID, Matched: len(listeners), Runs: make([]RunResult, len(listeners))}
	if len(listeners) == 0 {
		res.Message = NothingListens
		return res, nil
	}
	now := t.Now().UTC()
	errs := make([]error, len(listeners))
	for i, l := range listeners {
		wg.Go(func() {
			res.Runs[i], errs[i] = t.start(ctx, newRun(workspaceID, env, contactID, ev, l, now))
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return EventResult{}, err
	}
	var wake []WakeMessage
	for _, r := range res.Runs {
		if r.Status == OutcomeStarted {
			res.Started++
			wake = append(wake, WakeMessage{WorkspaceID: workspaceID, AutomationID: r.AutomationID, RunID: r.RunID}.ForStep(0))
		}
	}
	t.wake(ctx, wake)
	return res, nil
}

// newRun is the run listener l starts for ev: its first step due now,
// the payload frozen.
func newRun(workspaceID string, env apikey.Environment, contactID string, ev Event, l Listener, now time.Time) Run {
	return Run{
		WorkspaceID: workspaceID, AutomationID: l.AutomationID, Version: l.Version, ContactID: contactID,
		Event: ev.Name, EventKey: ev.Key, Environment: env, Payload: ev.Payload,
		Status: RunActive, DueAt: now, StartedAt: now, UpdatedAt: now, Log: []StepLog{},
	}
}

func (t *Trigger) start(ctx context.Context, r Run) (RunResult, error) {
	id, err := t.NewID()
	if err != nil {
		return RunResult{}, fmt.Errorf("run id: %w", err)
	}
	r.ID = id
	outcome, err := t.Store.StartRun(ctx, r)
	if err != nil {
		return RunResult{}, fmt.Errorf("start a run of automation %s: %w", r.AutomationID, err)
	}
	res := RunResult{AutomationID: r.AutomationID, Status: outcome}
	if outcome == OutcomeStarted {
		res.RunID = r.ID
	}
	return res, nil
}

// wake enqueues the started runs' first wake-up. A failure is logged, not
// answered: each run was written with a wake-up item two minutes after it
// is due (automationdb.AutomationRuns.StartRun), which the tick enqueues, so
// the run starts late rather than never, and the caller, told duplicate
// on a retry, is not asked to retry what already happened.
func (t *Trigger) wake(ctx context.Context, msgs []WakeMessage) {
	if len(msgs) == 0 {
		return
	}
	bodies, err := WakeBodies(msgs)
	if err == nil {
		err = t.Queue.EnqueueAll(ctx, bodies)
	}
	if err != nil {
		t.Logger.WarnContext(ctx, "automation runs not enqueued; the tick wakes them",
			slog.Int("runs", len(msgs)), slog.Any("err", err))
	}
}

// EventInput is an event as the route decoded it, each field raw enough to
// tell absent from empty: the validation is CheckEvent's.
type EventInput struct {
	Name    *string
	Key     *string
	Contact *ContactRef
	// Payload is the payload's JSON as sent; nil when absent.
	Payload json.RawMessage
}

// CheckEvent validates an event and returns it, or the error naming the
// first wrong field: a missing one, an event name that is not one (an
// uppercase name is refused, see CheckEventName), an event_key over
// MaxEventKey characters, a contact without exactly one of id and email,
// a payload that is not an object or is over MaxPayloadBytes of JSON.
func CheckEvent(in EventInput) (Event, error) {
	switch {
	case in.Name == nil:
		return Event{}, fail.Missing("event")
	case in.Key == nil:
		return Event{}, fail.Missing("event_key")
	case in.Contact == nil:
		return Event{}, fail.Missing("contact")
	}
	if err := CheckEventName(*in.Name); err != nil {
		return Event{}, fail.Invalid("event", "%s", err.Error())
	}
	switch n := utf8.RuneCountInString(*in.Key); {
	case n == 0:
		return Event{}, fail.Invalid("event_key", "event_key is not empty")
	case n > MaxEventKey:
		return Event{}, fail.Invalid("event_key", "event_key has at most %d characters; it has %d", MaxEventKey, n)
	}
	c := *in.Contact
	if (c.ID == "") == (c.Email == "") {
		return Event{}, fail.Invalid("contact", "contact names exactly one of id and email")
	}
	payload, err := checkPayload(in.Payload)
	if err != nil {
		return Event{}, err
	}
	return Event{Name: *in.Name, Key: *in.Key, Contact: c, Payload: payload}, nil
}

// checkPayload reads a payload's top-level strings, numbers (as JSON
// writes them) and booleans; nested objects and arrays, and nulls, are
// left out. The size is of the JSON as sent.
func checkPayload(raw json.RawMessage) (map[string]string, error) {
	if raw == nil || string(raw) == "null" {
		return map[string]string{}, nil
	}
	if len(raw) > MaxPayloadBytes {
		return nil, fail.Invalid("payload", "payload is at most %d bytes of JSON; it has %d", MaxPayloadBytes, len(raw))
	}
	var fields map[string]json.RawMessage
	if raw[0] != '{' || json.Unmarshal(raw, &fields) != nil {
		return nil, fail.Invalid("payload", "payload must be an object")
	}
	out := make(map[string]string, len(fields))
	for k, v := range fields {
		if k == "" {
			continue
		}
		switch v[0] {
		case '{', '[', 'n': // nested values and nulls are not merged
		case '"':
			var s string
			if err := json.Unmarshal(v, &s); err != nil {
				return nil, fail.Invalid("payload."+k, "payload.%s is not a valid string", k)
			}
			out[k] = s
		default: // a number or a boolean, its text as sent
			out[k] = string(v)
		}
	}
	return out, nil
}

// WakeSenders is how many batches of wake-ups go to the queue at once: a
// tick sweeping a minute of 1,000 runs a second (60,000 wake-ups) sends
// 6,000 batches, 48 s one after the other at 8 ms each, and the tick has
// 30 s.
const WakeSenders = 16

// WakeQueue puts wake-ups (WakeBodies) on the automations queue at once
// (queue.BatchPublisher).
type WakeQueue interface {
	EnqueueAll(ctx context.Context, bodies [][]byte) error
}
