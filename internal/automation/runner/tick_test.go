package runner

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/automation"
)

type fakeWakes struct {
	cursor time.Time
	due    map[time.Time][]automation.WakeMessage
	reads  int
}

func (f *fakeWakes) TickCursor(context.Context) (time.Time, error)      { return f.cursor, nil }
func (f *fakeWakes) SetTickCursor(_ context.Context, m time.Time) error { f.cursor = m; return nil }
func (f *fakeWakes) DueWakes(_ context.Context, m time.Time) ([]automation.WakeMessage, error) {
	f.reads++
	return slices.Clone(f.due[m]), nil
}
func (f *fakeWakes) ClearWakes(_ context.Context, m time.Time, ms []automation.WakeMessage) error {
	f.due[m] = slices.DeleteFunc(f.due[m], func(w automation.WakeMessage) bool { return slices.Contains(ms, w) })
	return nil
}

// fakeWakeQueue keeps the wake-ups; it fails every call once failAfter
// calls succeeded (0: never fails).
type fakeWakeQueue struct {
	got              []automation.WakeMessage
	calls, failAfter int
}

func (q *fakeWakeQueue) EnqueueAll(_ context.Context, bodies [][]byte) error {
	if q.failAfter > 0 && q.calls >= q.failAfter {
		return errors.New("the tick ran out of time")
	}
	q.calls++
	for _, b := range bodies {
		var m automation.WakeMessage
		if err := json.Unmarshal(b, &m); err != nil {
			return err
		}
		q.got = append(q.got, m)
	}
	return nil
}

// A minute of more wake-ups than a chunk: a tick that fails midway keeps
// the chunks it queued cleared and its cursor where it was; the next tick
// wakes only the rest, each run once.
func TestTickSweepsALargeMinuteInChunks(t *testing.T) {
	now := time.Date(2025, 3, 4, 10, 0, 30, 0, time.UTC)
	minute := now.Truncate(time.Minute)
	var due []automation.WakeMessage
	for i := range 2*SweepChunk + 500 {
		due = append(due, automation.WakeMessage{RunID: strconv.Itoa(i)})
	}
	w := &fakeWakes{cursor: minute.Add(-time.Minute), due: map[time.Time][]automation.WakeMessage{minute: due}}
	q := &fakeWakeQueue{failAfter: 2}
	tick := &Tick{Wakes: w, Queue: q, Now: func() time.Time { return now }}
	if n, err := tick.Run(context.Background()); err == nil || n != 2*SweepChunk || len(w.due[minute]) != 500 || !w.cursor.Equal(minute.Add(-time.Minute)) {
		t.Fatalf("failed tick: woke %d (%v), %d left, cursor %v; want 2 chunks woken and cleared, the cursor unmoved", n, err, len(w.due[minute]), w.cursor)
	}
	q.failAfter = 0
	if n, err := tick.Run(context.Background()); err != nil || n != 500 || len(w.due[minute]) != 0 || !w.cursor.Equal(minute) {
		t.Fatalf("next tick: woke %d (%v), %d left, cursor %v", n, err, len(w.due[minute]), w.cursor)
	}
	seen := map[string]bool{}
	for _, m := range q.got {
		if seen[m.RunID] {
			t.Fatalf("run %s woken twice", m.RunID)
		}
		seen[m.RunID] = true
	}
	if len(seen) != len(due) {
		t.Errorf("%d runs woken, want %d", len(seen), len(due))
	}
}

func TestTickSweepsFromItsCursor(t *testing.T) {
	now := time.Date(2025, 3, 4, 10, 0, 30, 0, time.UTC)
	minute := now.Truncate(time.Minute)
	w := &fakeWakes{due: map[time.Time][]automation.WakeMessage{
		minute.Add(-5 * time.Minute): {{RunID: "late"}},
		minute:                       {{RunID: "now"}},
		minute.Add(time.Minute):      {{RunID: "next minute"}},
	}}
	q := &fakeWakeQueue{}
	tick := &Tick{Wakes: w, Queue: q, Now: func() time.Time { return now }}
	n, err := tick.Run(context.Background())
	if err != nil || n != 2 || len(q.got) != 2 || !w.cursor.Equal(minute) || w.reads != SweepMinutes {
		t.Fatalf("first tick: woke %d %v, cursor %v, %d reads, %v", n, q.got, w.cursor, w.reads, err)
	}
	now = now.Add(time.Minute)
	if n, err := tick.Run(context.Background()); err != nil || n != 1 || q.got[2].RunID != "next minute" {
		t.Fatalf("second tick woke %d %v %v", n, q.got, err)
	}
	// Far behind (an outage): an hour per tick.
	w.reads, now = 0, now.Add(3*time.Hour)
	if _, err := tick.Run(context.Background()); err != nil || w.reads != SweepMinutes {
		t.Errorf("a tick far behind read %d minutes, %v", w.reads, err)
	}
}
