package status

import (
	"fmt"
	"slices"
	"time"
)

// CounterKind is which counter item a count goes to.
type CounterKind string

const (
	// DailyMetrics are a workspace's metrics of one day (Key YYYY-MM-DD).
	DailyMetrics CounterKind = "metrics"
	// MonthlyUsage is a workspace's live sends of one month (Key YYYY-MM).
	MonthlyUsage CounterKind = "usage"
	// OptOutClicks are an email's unsubscribe clicks (Key the email id).
	OptOutClicks CounterKind = "opt_out"
	// Reputation are the breaker's counts of the campaign and automation
	// emails a workspace sent in one hour (Key ReputationHour of SentAt).
	Reputation CounterKind = "reputation"
)

// ReputationHourLayout formats the hour of the reputation counts: the
// sender counts its sends and the pipeline their bounces and complaints
// to the same hour item, and the breaker reads its window's hours.
const ReputationHourLayout = "2006-01-02T15"

// ReputationHour is the key of the hour t falls in.
func ReputationHour(t time.Time) string { return t.UTC().Format(ReputationHourLayout) }

// Counter names one counter item.
type Counter struct {
	Kind        CounterKind
	WorkspaceID string
	Key         string
}

// Tally sums the counts of applied changes by counter item, so a batch
// of SES events writes each item once (one ADD of every name it counts)
// instead of once per event.
type Tally map[Counter]map[string]int

// Add counts what change c owes. Only changes whose dedupe record was
// just written may be added: a duplicate must not count again.
func (t Tally) Add(c Change) {
	if len(c.Metrics) > 0 {
		t.add(Counter{DailyMetrics, c.WorkspaceID, c.OccurredAt.UTC().Format("2006-01-02")}, c.Metrics...)
	}
	if c.UsageMonth != "" {
		t.add(Counter{MonthlyUsage, c.WorkspaceID, c.UsageMonth}, "sent")
	}
	if c.OptOutClick {
		t.add(Counter{OptOutClicks, c.WorkspaceID, c.EmailID}, "opt_out_clicks")
	}
	if len(c.Reputation) > 0 {
		t.add(Counter{Reputation, c.WorkspaceID, ReputationHour(c.SentAt)}, c.Reputation...)
	}
}

func (t Tally) add(k Counter, names ...string) {
	if t[k] == nil {
		t[k] = map[string]int{}
	}
	for _, n := range names {
		t[k][n]++
	}
}

// lines describes t for a log line: one "kind workspace key name=n" each.
func (t Tally) lines() []string {
	var out []string
	for k, counts := range t {
		for n, v := range counts {
			out = append(out, fmt.Sprintf("%s %s %s %s=%d", k.Kind, k.WorkspaceID, k.Key, n, v))
		}
	}
	slices.Sort(out)
	return out
}
