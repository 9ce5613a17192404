package dashboard

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/sesame-mail/sesame/internal/campaign"
	"github.com/sesame-mail/sesame/internal/metrics"
)

func (a *App) overviewRoutes() []route {
	return []route{{pattern: "GET /{$}", handler: a.overview}}
}

// overviewDays is the overview's range: the last 30 days, today included.
const overviewDays = 30

// SES's review thresholds, which the overview's rates are shown against.
const (
	bounceThreshold    = 0.05
	complaintThreshold = 0.001
)

// chartMetrics are the series of the overview's chart, in order.
var chartMetrics = []string{"sent", "delivered", "bounced", "complained", "opened", "clicked"}

type overviewData struct {
	Report                        metrics.Report
	Chart                         chart
	BounceOver, ComplaintOver     bool
	BounceLimit, ComplaintLimit   float64
	Held, PendingApprovals, Total int
}

func (a *App) overview(w http.ResponseWriter, r *http.Request, s *session) error {
	ctx := r.Context()
	today := time.Now().UTC().Truncate(24 * time.Hour)
	report, err := metrics.Compute(ctx, a.svc.Metrics, s.WorkspaceID, metrics.Query{From: today.AddDate(0, 0, -(overviewDays - 1)), To: today})
	if err != nil {
		return err
	}
	held, err := a.svc.Owner.Held.List(ctx, s.WorkspaceID)
	if err != nil {
		return err
	}
	drafts, err := a.svc.Owner.Approvals.List(ctx, s.WorkspaceID)
	if err != nil {
		return err
	}
	pending := 0
	for _, c := range drafts {
		if c.Status == campaign.StatusPendingApproval {
			pending++
		}
	}
	d := overviewData{
		Report: report, Chart: newChart(report.Days),
		BounceLimit: bounceThreshold, ComplaintLimit: complaintThreshold,
		BounceOver: report.Rates.Bounce >= bounceThreshold, ComplaintOver: report.Rates.Complaint >= complaintThreshold,
		Held: len(held), PendingApprovals: pending, Total: report.Totals["sent"],
	}
	return a.render(w, s, http.StatusOK, "overview.html", "Overview", "/", d)
}

// chart is the overview's SVG line chart, laid out here so the template
// only draws: one polyline per metric over the days.
type chart struct {
	Width, Height int
	Series        []series
	// Max is the top of the y axis; Labels are the first and last days.
	Max         int
	First, Last string
}

type series struct {
	Metric string
	Points string // "x,y x,y …" in the chart's coordinates
	Total  int
}

const (
	chartWidth  = 720
	chartHeight = 240
	chartPad    = 24
)

func newChart(days []metrics.Day) chart {
	c := chart{Width: chartWidth, Height: chartHeight}
	for _, d := range days {
		for _, m := range chartMetrics {
			c.Max = max(c.Max, d.Counts[m])
		}
	}
	if len(days) > 0 {
		c.First, c.Last = days[0].Date, days[len(days)-1].Date
	}
	top := max(c.Max, 1)
	step := float64(chartWidth-2*chartPad) / float64(max(len(days)-1, 1))
	for _, m := range chartMetrics {
		var pts []string
		total := 0
		for i, d := range days {
			n := d.Counts[m]
			total += n
			x := float64(chartPad) + step*float64(i)
			y := float64(chartHeight-chartPad) - float64(n)/float64(top)*float64(chartHeight-2*chartPad)
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x, y))
		}
		c.Series = append(c.Series, series{Metric: m, Points: strings.Join(pts, " "), Total: total})
	}
	return c
}
