package bench

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/sesame-mail/sesame/internal/dynamo"
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

// keyLoad is one partition class's units an email, per partition.
type keyLoad struct {
	class       string
	partitions  int
	read, write float64 // per email, on one partition of the class
}

// ceiling is the emails a second at which the class's partitions reach
// DynamoDB's per-partition limit.
func (k keyLoad) ceiling() float64 {
	c := math.Inf(1)
	if k.write > 0 {
		c = partitionWriteUnits / k.write
	}
	if k.read > 0 {
		c = math.Min(c, partitionReadUnits/k.read)
	}
	return c
}

// hotKeys is the load of scenario s on each partition class whose load
// grows with the workspace's rate, hottest first: the units its emails
// billed on the class's partitions, per email, spread evenly over them
// (a shard is chosen by a hash).
func hotKeys(s scenario) []keyLoad {
	byClass := map[string]*keyLoad{}
	for _, fw := range s.work {
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
			k.read += u.read / float64(s.emails*n)
			k.write += u.write / float64(s.emails*n)
		}
	}
	out := slices.Collect(maps.Values(byClass))
	loads := make([]keyLoad, 0, len(out))
	for _, k := range out {
		loads = append(loads, *k)
	}
	slices.SortFunc(loads, func(a, b keyLoad) int {
		return cmp.Or(cmp.Compare(a.ceiling(), b.ceiling()), strings.Compare(a.class, b.class))
	})
	return loads
}

// hotKeyReport writes the hot-key model: for each scenario the highest
// sustained emails a second of one workspace before a partition key
// passes DynamoDB's limits, and the keys that set it.
func hotKeyReport(out io.Writer) {
	costResults.Lock()
	defer costResults.Unlock()
	var lines []string
	for _, s := range costResults.scenarios {
		if !slices.Contains(hotKeyScenarios, s.name) {
			continue
		}
		keys := hotKeys(s)
		if len(keys) == 0 {
			continue
		}
		verdict := "meets"
		if keys[0].ceiling() < hotKeyGoal {
			verdict = "BELOW"
		}
		lines = append(lines, fmt.Sprintf("  %-44s %9.0f emails/s (%s the %.0f goal); limited by %s", s.name, keys[0].ceiling(), verdict, hotKeyGoal, keys[0].class))
		shown := 3 // and every key below the goal
		for shown < len(keys) && keys[shown].ceiling() < hotKeyGoal {
			shown++
		}
		for _, k := range keys[:min(shown, len(keys))] {
			lines = append(lines, fmt.Sprintf("      %-52s x%-4d %6.3f RRU %6.3f WRU an email each: %9.0f emails/s", k.class, k.partitions, k.read, k.write, k.ceiling()))
		}
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(out, "\nHot-key model: emails/s of one workspace before a partition key passes %.0f WRU/s or %.0f RRU/s\n", partitionWriteUnits, partitionReadUnits)
	fmt.Fprintf(out, "(AWS's billing rules per key; status batches at the cost table's rate, so counters are conservative):\n%s\n", strings.Join(lines, "\n"))
}
