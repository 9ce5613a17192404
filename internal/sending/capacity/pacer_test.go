package capacity_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/sending/capacity"
	"github.com/sesame-mail/sesame/internal/sending/capacity/capacitytest"
)

var start = time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)

// clock is a shared fake clock whose Sleep moves it on.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Sleep(_ context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	return nil
}

// Many senders sharing the slots never start more than the bulk share of
// the rate in any second.
func TestPacerNeverAboveBulkShare(t *testing.T) {
	slots := &capacitytest.Slots{}
	clk := &clock{now: start}
	var wg sync.WaitGroup
	for i := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := &capacity.Pacer{Slots: slots, Rate: capacity.FixedRate(14.7), Shares: capacity.DefaultShares, Now: clk.Now, Sleep: clk.Sleep}
			pool := capacity.NewPool(p, capacity.Claimant{Class: capacity.Campaign, Workspace: string(rune('a' + i%3))}, 10)
			for range 50 {
				if err := pool.Acquire(context.Background()); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	total := 0
	for _, s := range slots.Seconds() {
		n := 0
		for _, g := range slots.Granted(s) {
			n += g
		}
		if n > 11 { // floor(14 × 0.8)
			t.Errorf("second %d granted %d slots, over 11", s, n)
		}
		total += n
	}
	if total < 300 {
		t.Errorf("%d slots granted, want at least the 300 used", total)
	}
}

// Two workspaces asking all the time get at most half the slots each
// from the second after both asked, whoever claims first, and the second
// one gets its half.
func TestPacerSharesFairly(t *testing.T) {
	slots := &capacitytest.Slots{}
	clk := &clock{now: start}
	p := &capacity.Pacer{Slots: slots, Rate: capacity.FixedRate(100), Shares: capacity.DefaultShares, Now: clk.Now, Sleep: clk.Sleep}
	big, small := capacity.Claimant{Class: capacity.Campaign, Workspace: "big"}, capacity.Claimant{Class: capacity.Campaign, Workspace: "small"}
	ctx := context.Background()
	got := map[capacity.Claimant]int{}
	for range 20 {
		// The big one claims first and twice as often.
		for _, who := range []capacity.Claimant{big, big, small} {
			n, _, err := p.Take(ctx, who, 50)
			if err != nil {
				t.Fatal(err)
			}
			got[who] += n
		}
	}
	for _, s := range slots.Seconds() {
		g := slots.Granted(s)
		if s > start.Unix() && (g[big] > 40 || g[small] > 40) {
			t.Errorf("second %d: big %d, small %d; want at most 40 each", s-start.Unix(), g[big], g[small])
		}
	}
	if got[small] < 20*40*9/10 {
		t.Errorf("small got %d slots in 20 claims, big %d", got[small], got[big])
	}
}

// countingSlots counts the writes to the ledger.
type countingSlots struct {
	*capacitytest.Slots
	writes int
}

func (c *countingSlots) Claim(ctx context.Context, second int64, who capacity.Claimant, want, n, limit, total int) (bool, error) {
	c.writes++
	return c.Slots.Claim(ctx, second, who, want, n, limit, total)
}

// Many senders of one workspace refused in a second write the ledger
// once between them: the first one's ask already shows the demand.
func TestPacerRecordsOneRefusalASecond(t *testing.T) {
	slots := &countingSlots{Slots: &capacitytest.Slots{}}
	// A sender that would wait for the next second gives up instead.
	giveUp := func(context.Context, time.Duration) error { return context.Canceled }
	p := &capacity.Pacer{Slots: slots, Rate: capacity.FixedRate(10), Shares: capacity.DefaultShares,
		Now: func() time.Time { return start }, Sleep: giveUp}
	who := capacity.Claimant{Class: capacity.Campaign, Workspace: "big"}
	ctx := context.Background()
	if n, _, err := p.Take(ctx, who, 8); err != nil || n != 8 {
		t.Fatalf("first take: %d, %v", n, err)
	}
	for range 10 {
		if n, _, err := p.Take(ctx, who, 8); err == nil || n != 0 {
			t.Fatalf("a take past the share: %d, %v", n, err)
		}
	}
	if slots.writes != 2 {
		t.Errorf("%d ledger writes for one grant and 10 refusals, want 2", slots.writes)
	}
	if l, _ := slots.Ledger(ctx, start.Unix()); l.Asked[who] != 16 || l.Granted[who] != 8 {
		t.Errorf("ledger asked %d, granted %d; want 16 and 8", l.Asked[who], l.Granted[who])
	}
}
