package metrics_test

import (
	"context"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/metrics"
)

type daily map[string]map[string]int

func (d daily) DailyMetrics(context.Context, string, string, string) (map[string]map[string]int, error) {
	return d, nil
}

func day(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

// A query is refused as invalid input naming the field to change, and
// nothing is read.
func TestQueryValidate(t *testing.T) {
	campaign, unknownType := email.TypeCampaign, email.Type("newsletter")
	live, prod := apikey.Live, apikey.Environment("prod")
	cases := map[string]struct {
		q     metrics.Query
		param string // "" when valid
	}{
		"one day":            {metrics.Query{From: day("2026-11-22"), To: day("2026-11-22")}, ""},
		"filtered":           {metrics.Query{From: day("2026-11-01"), To: day("2026-11-22"), Type: &campaign, Environment: &live}, ""},
		"366 days":           {metrics.Query{From: day("2025-01-01"), To: day("2026-01-01")}, ""},
		"backwards":          {metrics.Query{From: day("2026-11-22"), To: day("2026-11-21")}, "to"},
		"367 days":           {metrics.Query{From: day("2024-01-01"), To: day("2025-01-01")}, "from"},
		"unknown type":       {metrics.Query{From: day("2026-11-22"), To: day("2026-11-22"), Type: &unknownType}, "type"},
		"unknown env":        {metrics.Query{From: day("2026-11-22"), To: day("2026-11-22"), Environment: &prod}, "environment"},
		"range before types": {metrics.Query{From: day("2026-11-22"), To: day("2026-11-21"), Type: &unknownType}, "to"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := tc.q.Validate()
			if tc.param == "" {
				if err != nil {
					t.Fatalf("Validate = %v", err)
				}
				return
			}
			e, ok := fail.As(err)
			if !ok || e.Kind != fail.KindInvalid || e.Param != tc.param {
				t.Errorf("Validate = %v, want invalid about %s", err, tc.param)
			}
		})
	}
}

func TestComputeFilters(t *testing.T) {
	store := daily{"2026-11-21": {"campaign_live_sent": 4, "campaign_live_delivered": 2, "transactional_live_sent": 9}}
	campaign := email.TypeCampaign
	rep, err := metrics.Compute(t.Context(), store, "ws", metrics.Query{From: day("2026-11-20"), To: day("2026-11-22"), Type: &campaign})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Totals["sent"] != 4 || rep.Totals["delivered"] != 2 || rep.Rates.Delivery != 0.5 || len(rep.Days) != 3 {
		t.Errorf("report = %+v", rep)
	}
	if rep.Type == nil || *rep.Type != "campaign" || rep.Environment != nil {
		t.Errorf("filters = %v, %v", rep.Type, rep.Environment)
	}
}
