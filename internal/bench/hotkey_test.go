package bench

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/sending/contextcache"
	"github.com/sesame-mail/sesame/internal/webhook"
	"github.com/sesame-mail/sesame/internal/webhook/endpointcache"
)

// DynamoDB's throughput per partition key, a second: adaptive capacity
// cannot split a partition whose sort keys always grow.
const (
	partitionWriteUnits = 1000.0
	partitionReadUnits  = 3000.0
)

// hotKeyScenarios are the cost scenarios the hot-key model reads, and the
// emails a second per workspace each must reach.
var hotKeyScenarios = []string{"plain send (Delivery)", "full tracking: 1 open, 1 click", "tracking + 1 webhook endpoint, all events"}

const hotKeyGoal = 10000.0

// beforeCaches are the model's figures before the instance caches and the
// sharded do-not-send list and usage (docs/decisions.md, "Hot-key model"),
// printed beside today's.
var beforeCaches = map[string]string{
	"plain send (Delivery)":                     "2,857 (WS#<ws>#USAGE)",
	"full tracking: 1 open, 1 click":            "2,353 (WS#<ws>#USAGE)",
	"tracking + 1 webhook endpoint, all events": "2,353 (WS#<ws>#USAGE; WS#<ws>#WEBHOOK 3,077)",
}

// The bench runs without the instance caches, so every read it bills is
// a miss; the model gives each cached read its miss rate instead. A warm
// instance misses a cached item at most once a TTL, so at R emails/s the
// reads of an item by one function are min(R × its reads an email,
// warmInstances / TTL) a second, each billed as the bench billed it.
// warmInstances is generous: at 10,000 emails/s a send (≈ 50 ms) keeps
// about 500 instances busy, and 1,000 is the account's default
// concurrency for every function together; more instances only mean more
// misses, so the figure is a floor.
const warmInstances = 1000.0

// cachedReads are, per function, the partition classes whose reads a warm
// instance skips (contextcache.Store, endpointcache.Cache) and their
// TTL. The do-not-send list's partition before the shards is skipped once
// an instance learns it is empty (a workspace created after the shards, or
// whose old entries are gone); the usage is read only for a capped
// workspace, and cached while far from its allowance. The layout's
// partition holds the verdict and the day's reference, which an instance
// keeps the day: modelled at the verdict's TTL, a floor.
var cachedReads = map[string]map[string]time.Duration{
	routes.Send.Function: {
		"WS#<ws>#WORKSPACE": contextcache.TTL, "WS#<ws>#TEMPLATE": contextcache.TTL, "WS#<ws>#SENDER": contextcache.TTL,
		"WS#<ws>#SUPPRESSION": contextcache.TTL, "WS#<ws>#USAGE": contextcache.TTL, "WS#<ws>#USAGE#<shard>": contextcache.TTL,
	},
	routes.Status.Function:          {"WS#<ws>#WEBHOOK": endpointcache.TTL},
	routes.WebhookDispatch.Function: {"WS#<ws>#WEBHOOK": endpointcache.TTL},
}

// boundedWrites are, per function, the partition classes whose writes
// are spaced in time, not made per email, and how many a warm instance
// makes a second at most: a healthy endpoint's success is written once a
// webhook.SuccessRefresh (by every job of a batch, 10, that read it
// before the write).
var boundedWrites = map[string]map[string]float64{
	routes.WebhookDispatch.Function: {"WS#<ws>#WEBHOOK": 10 / webhook.SuccessRefresh.Seconds()},
}

// keyLoad is one partition class's load, per email and per partition.
type keyLoad struct {
	class       string
	partitions  int
	read, write float64 // units a partition takes an email, every time
	cached      []bounded
	spaced      []bounded
}

// bounded is what one function does to a partition of the class an
// email (calls, units), of which a warm instance makes at most perSecond
// a second (a cached read: one a TTL).
type bounded struct {
	calls, units, perSecond float64
}

// at is the units a second the calls take at rate emails a second, with
// warmInstances instances making them.
func (b bounded) at(rate float64) float64 {
	return math.Min(rate*b.calls, warmInstances*b.perSecond) * b.units / b.calls
}

// loadAt is the read and write units a second one partition takes at
// rate emails a second; uncached, every call as the bench billed it.
func (k keyLoad) loadAt(rate float64, uncached bool) (read, write float64) {
	read, write = rate*k.read, rate*k.write
	for _, c := range k.cached {
		if uncached {
			read += rate * c.units
		} else {
			read += c.at(rate)
		}
	}
	for _, w := range k.spaced {
		if uncached {
			write += rate * w.units
		} else {
			write += w.at(rate)
		}
	}
	return read, write
}

// ceiling is the emails a second at which a partition of the class
// reaches DynamoDB's per-partition limits: the load grows with the rate,
// so it is bisected; +Inf when even a billion a second fits.
func (k keyLoad) ceiling(uncached bool) float64 {
	fits := func(rate float64) bool {
		r, w := k.loadAt(rate, uncached)
		return r <= partitionReadUnits && w <= partitionWriteUnits
	}
	const far = 1e9
	if fits(far) {
		return math.Inf(1)
	}
	lo, hi := 0.0, far
	for hi-lo > 0.5 {
		if mid := (lo + hi) / 2; fits(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return math.Round(lo)
}

// hotKeys is the load of the work on each partition class whose load
// grows with the workspace's rate, hottest first (uncached: as if no
// read were cached): the units its emails billed on the class's
// partitions, per email, spread evenly over them (a shard is chosen by a
// hash).
func hotKeys(work emailWork, emails int, uncached bool) []keyLoad {
	byClass := map[string]*keyLoad{}
	for fn, fw := range work {
		for pk, u := range fw.sum.db.Heat {
			class, n := dynamo.Spread(pk)
			if n == 0 {
				continue
			}
			k := byClass[class]
			if k == nil {
				k = &keyLoad{class: class, partitions: n}
				byClass[class] = k
			}
			per := float64(emails * n)
			if ttl, ok := cachedReads[fn][class]; ok && u.reads > 0 {
				k.cached = append(k.cached, bounded{calls: u.reads / per, units: u.read / per, perSecond: 1 / ttl.Seconds()})
			} else {
				k.read += u.read / per
			}
			if perSecond, ok := boundedWrites[fn][class]; ok && u.write > 0 {
				// A write a call: the units are what one costs.
				k.spaced = append(k.spaced, bounded{calls: u.write / per, units: u.write / per, perSecond: perSecond})
			} else {
				k.write += u.write / per
			}
		}
	}
	loads := make([]keyLoad, 0, len(byClass))
	for _, class := range slices.Sorted(maps.Keys(byClass)) {
		loads = append(loads, *byClass[class])
	}
	slices.SortStableFunc(loads, func(a, b keyLoad) int {
		return cmp.Compare(a.ceiling(uncached), b.ceiling(uncached))
	})
	return loads
}

// hotKeyReport writes the hot-key model: for each scenario the highest
// sustained emails a second of one workspace before a partition key
// passes DynamoDB's limits, and the keys that set it; beside it the same
// without the instance caches, and the figure before them.
func hotKeyReport(out io.Writer) {
	costResults.Lock()
	defer costResults.Unlock()
	var lines []string
	for _, s := range costResults.scenarios {
		if !slices.Contains(hotKeyScenarios, s.name) {
			continue
		}
		keys := hotKeys(s.work, s.emails, false)
		if len(keys) == 0 {
			continue
		}
		verdict := "meets"
		if keys[0].ceiling(false) < hotKeyGoal {
			verdict = "BELOW"
		}
		bare := hotKeys(s.work, s.emails, true)
		lines = append(lines, fmt.Sprintf("  %-44s %9.0f emails/s (%s the %.0f goal); limited by %s", s.name, keys[0].ceiling(false), verdict, hotKeyGoal, keys[0].class),
			fmt.Sprintf("      without the caches %.0f (%s); before them %s", bare[0].ceiling(true), bare[0].class, beforeCaches[s.name]))
		for _, k := range keys[:min(4, len(keys))] {
			cached, spaced := 0.0, 0.0
			for _, c := range k.cached {
				cached += c.units
			}
			for _, w := range k.spaced {
				spaced += w.units
			}
			lines = append(lines, fmt.Sprintf("      %-36s x%-3d %5.3f RRU (+%5.3f cached) %5.3f WRU (+%5.3f spaced) an email each: %7.0f emails/s",
				k.class, k.partitions, k.read, cached, k.write, spaced, k.ceiling(false)))
		}
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(out, "\nHot-key model: emails/s of one workspace before a partition key passes %.0f WRU/s or %.0f RRU/s\n", partitionWriteUnits, partitionReadUnits)
	fmt.Fprintf(out, "(AWS's billing rules per key; status batches at the cost table's rate, so counters are conservative;\n")
	fmt.Fprintf(out, "cached reads at one miss a TTL, spaced writes at their pace, per warm instance, %.0f instances a function):\n%s\n", warmInstances, strings.Join(lines, "\n"))
}
