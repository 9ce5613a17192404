// Package metrics is GET /api/v1/metrics: counts per status and derived
// rates over a date range, from daily counters the status pipeline keeps
// (never by scanning emails).
package metrics

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/routes"
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

// Handlers serves the metrics route.
type Handlers struct {
	Store Store
	Now   func() time.Time
}

// Routes returns the routes served by h.
func (h Handlers) Routes() []httpapi.Route {
	return []httpapi.Route{{Route: routes.Metrics, Handler: h.Get}}
}

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

// Report is the body of GET /api/v1/metrics (inside data).
type Report struct {
	From        string  `json:"from"`
	To          string  `json:"to"`
	Type        *string `json:"type"`
	Environment *string `json:"environment"`
	Totals      Counts  `json:"totals"`
	Rates       Rates   `json:"rates"`
	Days        []Day   `json:"days"`
}

// Get answers GET /api/v1/metrics?from=&to=&type=&environment=. from and
// to are UTC dates (default: the last 30 days through today).
func (h Handlers) Get(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	now := time.Now
	if h.Now != nil {
		now = h.Now
	}
	today := now().UTC().Truncate(24 * time.Hour)
	from, to := today.AddDate(0, 0, -29), today
	var err error
	if q.Has("from") {
		if from, err = time.Parse(time.DateOnly, q.Get("from")); err != nil {
			return fail.Invalid("from", "from must be a date as YYYY-MM-DD")
		}
	}
	if q.Has("to") {
		if to, err = time.Parse(time.DateOnly, q.Get("to")); err != nil {
			return fail.Invalid("to", "to must be a date as YYYY-MM-DD")
		}
	}
	if to.Before(from) {
		return fail.Invalid("to", "to must not be before from")
	}
	if to.Sub(from) >= MaxDays*24*time.Hour {
		return fail.Invalid("from", "a range covers at most %d days", MaxDays)
	}
	typ, env := email.Type(q.Get("type")), apikey.Environment(q.Get("environment"))
	if q.Has("type") && !typ.Valid() {
		return fail.Invalid("type", "type must be one of campaign, automation, transactional")
	}
	if q.Has("environment") && !env.Valid() {
		return fail.Invalid("environment", "environment must be live or test")
	}
	days, err := h.Store.DailyMetrics(r.Context(), httpapi.PrincipalFrom(r.Context()).WorkspaceID, from.Format(time.DateOnly), to.Format(time.DateOnly))
	if err != nil {
		return err
	}
	rep := Report{From: from.Format(time.DateOnly), To: to.Format(time.DateOnly), Totals: zero(), Days: []Day{}}
	if typ != "" {
		s := string(typ)
		rep.Type = &s
	}
	if env != "" {
		s := string(env)
		rep.Environment = &s
	}
	for d := from; !d.After(to); d = d.AddDate(0, 0, 1) {
		date := d.Format(time.DateOnly)
		counts := zero()
		for name, n := range days[date] {
			parts := strings.SplitN(name, "_", 3)
			if len(parts) != 3 || (typ != "" && parts[0] != string(typ)) || (env != "" && parts[1] != string(env)) {
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
	httpapi.WriteJSON(w, http.StatusOK, httpapi.Data[Report]{Data: rep})
	return nil
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
