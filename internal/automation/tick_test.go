package automation

import (
	"context"
	"testing"
	"time"
)

type fakeWakes struct {
	cursor time.Time
	due    map[time.Time][]WakeMessage
	reads  int
}

func (f *fakeWakes) TickCursor(context.Context) (time.Time, error)      { return f.cursor, nil }
func (f *fakeWakes) SetTickCursor(_ context.Context, m time.Time) error { f.cursor = m; return nil }
func (f *fakeWakes) DueWakes(_ context.Context, m time.Time) ([]WakeMessage, error) {
	f.reads++
	return f.due[m], nil
}
func (f *fakeWakes) ClearWakes(_ context.Context, m time.Time, _ []WakeMessage) error {
	delete(f.due, m)
	return nil
}

type fakeWakeQueue struct{ got []WakeMessage }

func (q *fakeWakeQueue) WakeAll(_ context.Context, ms []WakeMessage) error {
	q.got = append(q.got, ms...)
	return nil
}

func TestTickSweepsFromItsCursor(t *testing.T) {
	now := time.Date(2025, 3, 4, 10, 0, 30, 0, time.UTC)
	minute := now.Truncate(time.Minute)
	w := &fakeWakes{due: map[time.Time][]WakeMessage{
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
