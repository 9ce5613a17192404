// Package metrics reports counts per status and derived rates over a date
// range, from daily counters the status pipeline keeps (never by scanning
// emails). GET /api/v1/metrics is served by metricshttp.
package metrics

import (
	"context"
	"strings"
	"time"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/fail"
)

// Store reads daily counters ("<type>_<environment>_<metric>" → count) by
// day (YYYY-MM-DD).
type Store interface {
	DailyMetrics(ctx context.Context, workspaceID, from, to string) (map[string]map[string]int, error)
}

// Counted are the metrics the pipeline counts, once per email each.
var Counted = []string{"sent", "delivered", "opened", "clicked", "bounced", "complained", "failed"}

// MaxDays bounds one range.
const MaxDays = 366

// Counts are per-metric totals.
type Counts map[string]int

// Rates are derived ratios, 0 when their base is 0.
type Rates struct {
	Delivery  float64 `json:"delivery_rate"`  // delivered / sent
	Bounce    float64 `json:"bounce_rate"`    // bounced / sent
	Complaint float64 `json:"complaint_rate"` // complained / delivered
	Open      float64 `json:"open_rate"`      // opened / delivered
	Click     float64 `json:"click_rate"`     // clicked / delivered
}

// Day is one day's counts.
type Day struct {
	Date   string `json:"date"`
	Counts Counts `json:"counts"`
}

// Report is the metrics of a range (the body of GET /api/v1/metrics,
// inside data).
type Report struct {
	From        string  `json:"from"`
	To          string  `json:"to"`
	Type        *string `json:"type"`
	Environment *string `json:"environment"`
	Totals      Counts  `json:"totals"`
	Rates       Rates   `json:"rates"`
	Days        []Day   `json:"days"`
}

// Query is what a report covers: the UTC days From to To, both included,
// of one email type and one environment, or of all when nil.
type Query struct {
	From, To    time.Time
	Type        *email.Type
	Environment *apikey.Environment
}

// Validate refuses a query no report answers: a range that runs backwards
// or covers more than MaxDays, an unknown type or environment.
func (q Query) Validate() error {
	switch {
	case q.To.Before(q.From):
		return fail.Invalid("to", "to must not be before from")
	case q.To.Sub(q.From) >= MaxDays*24*time.Hour:
		return fail.Invalid("from", "a range covers at most %d days", MaxDays)
	case q.Type != nil && !q.Type.Valid():
		return fail.Invalid("type", "type must be one of campaign, automation, transactional")
	case q.Environment != nil && !q.Environment.Valid():
		return fail.Invalid("environment", "environment must be live or test")
	}
	return nil
}

// Compute reports the metrics of workspaceID that q asks for.
func Compute(ctx context.Context, s Store, workspaceID string, q Query) (Report, error) {
	if err := q.Validate(); err != nil {
		return Report{}, err
	}
	from, to := q.From.Format(time.DateOnly), q.To.Format(time.DateOnly)
	days, err := s.DailyMetrics(ctx, workspaceID, from, to)
	if err != nil {
		return Report{}, err
	}
	typ, env := "", ""
	rep := Report{From: from, To: to, Totals: zero(), Days: []Day{}}
	if q.Type != nil {
		typ = string(*q.Type)
		rep.Type = &typ
	}
	if q.Environment != nil {
		env = string(*q.Environment)
		rep.Environment = &env
	}
	for d := q.From; !d.After(q.To); d = d.AddDate(0, 0, 1) {
		date := d.Format(time.DateOnly)
		counts := zero()
		for name, n := range days[date] {
			parts := strings.SplitN(name, "_", 3)
			if len(parts) != 3 || (typ != "" && parts[0] != typ) || (env != "" && parts[1] != env) {
				continue
			}
			if _, ok := counts[parts[2]]; ok {
				counts[parts[2]] += n
				rep.Totals[parts[2]] += n
			}
		}
		rep.Days = append(rep.Days, Day{Date: date, Counts: counts})
	}
	t := rep.Totals
	rep.Rates = Rates{
		Delivery: ratio(t["delivered"], t["sent"]), Bounce: ratio(t["bounced"], t["sent"]),
		Complaint: ratio(t["complained"], t["delivered"]), Open: ratio(t["opened"], t["delivered"]),
		Click: ratio(t["clicked"], t["delivered"]),
	}
	return rep, nil
}

func zero() Counts {
	c := Counts{}
	for _, m := range Counted {
		c[m] = 0
	}
	return c
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(int(float64(a)/float64(b)*10000+0.5)) / 10000
}
