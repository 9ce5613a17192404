package runner

import (
	"context"
	"encoding/json"
	"github.com/sesame-mail/sesame/internal/sending"
	"time"

	"github.com/sesame-mail/sesame/internal/automation"
)

// WakeStore holds the wake-ups of long waits by due minute, and the
// tick's cursor (automationdb.AutomationRuns).
type WakeStore interface {
	TickCursor(ctx context.Context) (time.Time, error)
	SetTickCursor(ctx context.Context, minute time.Time) error
	DueWakes(ctx context.Context, minute time.Time) ([]automation.WakeMessage, error)
	ClearWakes(ctx context.Context, minute time.Time, ms []automation.WakeMessage) error
}

// SweepMinutes bounds the minutes one tick sweeps: a tick behind after an
// outage catches up an hour a minute. A first tick, with no cursor, starts
// this far back: a wake-up is always written at least MaxQueueDelay before
// it is due, so none is older than the tick's first run.
const SweepMinutes = 60

// SweepChunk is how many wake-ups of a minute the tick queues, then
// clears, at a time.
const SweepChunk = 1000

// Tick enqueues the runs whose long wait ends: every minute it sweeps
// the wake-ups due from its cursor to now.
type Tick struct {
	Wakes WakeStore
	Queue automation.WakeQueue
	// Review takes the scheduled emails that are due, as the review queue
	// carries them (sending.ReviewMessage): the held-email release sends
	// them.
	Review automation.WakeQueue
	Now    func() time.Time
}

// Run sweeps the due minutes and says how many runs it woke. A minute is
// cleared and the cursor moved only once its wake-ups are queued, so a
// failed tick sweeps it again (a run woken twice does its step once).
func (t *Tick) Run(ctx context.Context) (int, error) {
	now := t.Now().UTC().Truncate(time.Minute)
	cursor, err := t.Wakes.TickCursor(ctx)
	if err != nil {
		return 0, err
	}
	from := cursor.Add(time.Minute)
	if cursor.IsZero() {
		from = now.Add(-(SweepMinutes - 1) * time.Minute)
	}
	woken := 0
	for m, n := from, 0; !m.After(now) && n < SweepMinutes; m, n = m.Add(time.Minute), n+1 {
		due, err := t.Wakes.DueWakes(ctx, m)
		if err != nil {
			return woken, err
		}
		// A chunk queued is cleared before the next: a tick that ends
		// mid-minute (a minute of 1,000 runs a second holds 60,000) keeps
		// what it did, and the next one wakes only the rest.
		for len(due) > 0 {
			chunk := due[:min(SweepChunk, len(due))]
			due = due[len(chunk):]
			if err := t.enqueue(ctx, chunk); err != nil {
				return woken, err
			}
			if err := t.Wakes.ClearWakes(ctx, m, chunk); err != nil {
				return woken, err
			}
			woken += len(chunk)
		}
		if err := t.Wakes.SetTickCursor(ctx, m); err != nil {
			return woken, err
		}
	}
	return woken, nil
}

// enqueue puts the runs of ms on the automations queue and the scheduled
// emails of ms on the review queue.
func (t *Tick) enqueue(ctx context.Context, ms []automation.WakeMessage) error {
	var runs []automation.WakeMessage
	var due [][]byte
	for _, m := range ms {
		if m.EmailID == "" {
			runs = append(runs, m)
			continue
		}
		b, err := json.Marshal(sending.ReviewMessage{WorkspaceID: m.WorkspaceID, EmailID: m.EmailID, Scheduled: true})
		if err != nil {
			return err
		}
		due = append(due, b)
	}
	if len(due) > 0 {
		if err := t.Review.EnqueueAll(ctx, due); err != nil {
			return err
		}
	}
	bodies, err := automation.WakeBodies(runs)
	if err != nil || len(bodies) == 0 {
		return err
	}
	return t.Queue.EnqueueAll(ctx, bodies)
}
