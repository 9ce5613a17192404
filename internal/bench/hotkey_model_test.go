package bench

import (
	"math"
	"testing"

	"github.com/sesame-mail/sesame/internal/routes"
)

// The hot-key model's arithmetic on a made-up workload of 10 emails: a
// class's units an email spread over its partitions, writes against
// 1,000 WRU/s and reads against 3,000 RRU/s, and a cached read bounded by
// the warm instances' misses (one a TTL each), whatever the rate.
func TestHotKeyModel(t *testing.T) {
	const emails = 10
	work := emailWork{}
	work.add(routes.Send.Function, sample{db: dbUsage{Heat: map[string]units{
		"WS#w#WORKSPACE":     {read: 10, reads: 10}, // 1 RRU an email, cached by the send
		"WS#w#SUPPRESSION#3": {read: 10, reads: 10}, // 1 RRU an email over 16 shards
		"WS#w#EMAIL#5":       {write: 20},           // 2 WRU an email over 64 shards
		"BODY#x":             {write: 1000},         // a partition per email: left out
	}}})
	work.add(routes.Status.Function, sample{db: dbUsage{Heat: map[string]units{
		"WS#w#WEBHOOK": {read: 40, reads: 10}, // one 4 RRU read an email, cached: 1,000 misses × 4 > 3,000
		"WS#w#USAGE#2": {write: 5},            // 0.5 WRU an email over 16 shards
	}}})
	work.add(routes.WebhookDispatch.Function, sample{db: dbUsage{Heat: map[string]units{
		"WS#w#WEBHOOK": {write: 1}, // 0.1 WRU an email, spaced: ≤ 1,000 × 10 a minute ≈ 167 WRU/s
	}}})
	ceilings := func(uncached bool) map[string]float64 {
		out := map[string]float64{}
		for _, k := range hotKeys(work, emails, uncached) {
			out[k.class] = k.ceiling(uncached)
		}
		return out
	}
	near := func(got, want float64) bool {
		return math.Abs(got-want) <= 1 || (math.IsInf(got, 1) && math.IsInf(want, 1))
	}
	for name, tc := range map[string]struct {
		uncached bool
		want     map[string]float64
	}{
		"cached reads at their miss rate": {false, map[string]float64{
			"WS#<ws>#WORKSPACE":           math.Inf(1), // ≤ 1,000 RRU/s at any rate
			"WS#<ws>#SUPPRESSION#<shard>": 48000,       // 3,000 ÷ (1/16)
			"WS#<ws>#EMAIL#<shard>":       32000,       // 1,000 ÷ (2/64)
			"WS#<ws>#WEBHOOK":             750,         // every read a miss until 750/s: 750 × 4 = 3,000; the writes stay ≤ 167 WRU/s
			"WS#<ws>#USAGE#<shard>":       32000,       // 1,000 ÷ (0.5/16)
		}},
		"every read billed": {true, map[string]float64{
			"WS#<ws>#WORKSPACE": 3000, "WS#<ws>#SUPPRESSION#<shard>": 48000, "WS#<ws>#EMAIL#<shard>": 32000,
			"WS#<ws>#WEBHOOK": 750, "WS#<ws>#USAGE#<shard>": 32000,
		}},
	} {
		t.Run(name, func(t *testing.T) {
			got := ceilings(tc.uncached)
			if len(got) != len(tc.want) {
				t.Errorf("classes %v, want %v", got, tc.want)
			}
			for class, want := range tc.want {
				if !near(got[class], want) {
					t.Errorf("%s: %.1f emails/s, want %.0f", class, got[class], want)
				}
			}
		})
	}
	if k := hotKeys(work, emails, false)[0]; k.class != "WS#<ws>#WEBHOOK" {
		t.Errorf("hottest %s, want WS#<ws>#WEBHOOK", k.class)
	}
	// At 1 RRU a miss the webhook class's reads never limit, and its
	// spaced writes neither; billed per email, the writes stop it at
	// 1,000 ÷ 0.1.
	light := work
	light[routes.Status.Function].sum.db.Heat["WS#w#WEBHOOK"] = units{read: 10, reads: 10}
	for _, k := range hotKeys(light, emails, false) {
		if k.class != "WS#<ws>#WEBHOOK" {
			continue
		}
		if c := k.ceiling(false); !math.IsInf(c, 1) {
			t.Errorf("1 RRU a miss, spaced writes: %.0f emails/s, want no limit", c)
		}
		if c := k.ceiling(true); c != 3000 {
			t.Errorf("every call billed: %.0f emails/s, want 3,000 (its 1 RRU an email)", c)
		}
	}
}
