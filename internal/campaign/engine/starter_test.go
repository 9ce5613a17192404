package engine

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/campaign"
)

// Start moves a scheduled campaign to sending and queues one message per
// chunk; a discarded one is refused and queues nothing.
func TestStarterStart(t *testing.T) {
	w := newWorld(2500, 1000)
	w.c.Status, w.c.StartedAt = campaign.StatusScheduled, nil
	st := &Starter{Campaigns: w, Queue: w, Now: func() time.Time { return start }}
	if err := st.Start(t.Context(), w.c); err != nil {
		t.Fatal(err)
	}
	if w.c.Status != campaign.StatusSending || len(w.enqueued) != 3 {
		t.Fatalf("status %s, %d messages", w.c.Status, len(w.enqueued))
	}
	var m ChunkMessage
	if err := json.Unmarshal(w.enqueued[2], &m); err != nil || m.Chunk != 2 || m.CampaignID != w.c.ID {
		t.Fatalf("message %s: %v", w.enqueued[2], err)
	}
	w.c.Status = campaign.StatusDiscarded
	if err := st.Start(t.Context(), w.c); err == nil || len(w.enqueued) != 3 {
		t.Fatalf("discarded campaign started: %v", err)
	}
}

// The tick starts a scheduled campaign once its time has come, not
// before, and drops the due start of a campaign no longer scheduled for it.
func TestStarterTick(t *testing.T) {
	w := newWorld(10, 10)
	at := start.Add(30 * time.Minute)
	w.c.Status, w.c.StartedAt, w.c.ScheduledAt = campaign.StatusScheduled, nil, &at
	clk := &clock{now: start}
	st := &Starter{Campaigns: w, Queue: w, Due: w, Now: clk.Now}
	if err := st.Schedule(t.Context(), w.c); err != nil {
		t.Fatal(err)
	}
	for minute := 0; minute < 29; minute++ {
		clk.Sleep(t.Context(), time.Minute)
		if n, err := st.Tick(t.Context()); n != 0 || err != nil {
			t.Fatalf("started %d at %s (%v)", n, clk.Now(), err)
		}
	}
	clk.Sleep(t.Context(), time.Minute)
	if n, err := st.Tick(t.Context()); n != 1 || err != nil || w.c.Status != campaign.StatusSending || len(w.enqueued) != 1 {
		t.Fatalf("started %d (%v), status %s", n, err, w.c.Status)
	}
	if len(w.due) != 0 {
		t.Fatalf("due starts left: %v", w.due)
	}

	// Edited back to pending approval before its time: the tick drops it.
	w.c.Status = campaign.StatusPendingApproval
	later := clk.Now().Add(time.Minute)
	w.c.ScheduledAt = &later
	st.Schedule(t.Context(), w.c)
	clk.Sleep(t.Context(), 2*time.Minute)
	if n, err := st.Tick(t.Context()); n != 0 || err != nil || len(w.due) != 0 {
		t.Fatalf("started %d (%v), due %v", n, err, w.due)
	}
}
