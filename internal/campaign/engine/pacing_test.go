package engine

import (
	"context"
	"sync"
	"testing"
)

// Many senders sharing the slots never start more than the rate in any
// second.
func TestPacerNeverAboveRate(t *testing.T) {
	w := newWorld(0, 1)
	clk := &clock{now: start}
	var starts sync.Map
	var wg sync.WaitGroup
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pool := &slotPool{pacer: &Pacer{Slots: w, Rate: FixedRate(14.7), Now: clk.Now, Sleep: clk.Sleep}, want: 10}
			for range 50 {
				if err := pool.acquire(context.Background()); err != nil {
					t.Error(err)
					return
				}
				// The second the slot belongs to: another sender's sleep
				// may move the shared clock on before this line.
				n, _ := starts.LoadOrStore(pool.until.Unix()-1, new(int64))
				w.mu.Lock()
				*n.(*int64)++
				w.mu.Unlock()
			}
		}()
	}
	wg.Wait()
	total := int64(0)
	starts.Range(func(k, v any) bool {
		if n := *v.(*int64); n > 14 {
			t.Errorf("second %v started %d sends, over 14", k, n)
		}
		total += *v.(*int64)
		return true
	})
	if total != 300 {
		t.Errorf("%d sends started, want 300", total)
	}
}
