package metricshttp_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/metrics"
	"github.com/sesame-mail/sesame/internal/metrics/metricshttp"
)

// fakeStore answers DailyMetrics with its function and records the calls.
type fakeStore struct {
	daily func(ws, from, to string) (map[string]map[string]int, error)
	calls []string // "ws from to"
}

func (f *fakeStore) DailyMetrics(_ context.Context, ws, from, to string) (map[string]map[string]int, error) {
	f.calls = append(f.calls, ws+" "+from+" "+to)
	return f.daily(ws, from, to)
}

const ws = "ws_1"

// now is the handler's clock: mid-afternoon, so "today" must be truncated.
var now = time.Date(2026, 11, 22, 15, 4, 5, 0, time.UTC)

// counters is what the pipeline counted, by day.
var counters = map[string]map[string]int{
	"2026-11-20": {
		"transactional_live_sent": 4, "transactional_live_delivered": 3, "transactional_live_opened": 2,
		"transactional_live_clicked": 1, "transactional_live_bounced": 1,
		"campaign_live_sent": 10, "campaign_live_delivered": 8, "campaign_live_complained": 2,
		"automation_test_sent": 2, "automation_test_failed": 1,
		"transactional_live_unsubscribed": 7, // not a counted metric: ignored
		"garbage":                         9, // not <type>_<env>_<metric>: ignored
	},
	"2026-11-22": {"transactional_live_sent": 1, "transactional_live_delivered": 1},
	"2026-11-25": {"transactional_live_sent": 100}, // outside every range asked below
}

func newHandler() (metricshttp.Handlers, *fakeStore) {
	store := &fakeStore{daily: func(_, from, to string) (map[string]map[string]int, error) {
		out := map[string]map[string]int{}
		for day, c := range counters {
			if day >= from && day <= to { // as the store's Between does
				out[day] = c
			}
		}
		return out, nil
	}}
	return metricshttp.Handlers{Metrics: &metrics.Service{Store: store, Now: func() time.Time { return now }}}, store
}

func get(t *testing.T, h metricshttp.Handlers, query string) (*httptest.ResponseRecorder, error) {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, "/api/v1/metrics"+query, nil)
	r = r.WithContext(httpapi.WithPrincipal(r.Context(), apikey.Principal{WorkspaceID: ws, Environment: apikey.Live}))
	w := httptest.NewRecorder()
	return w, h.Get(w, r)
}

type report struct {
	From        string         `json:"from"`
	To          string         `json:"to"`
	Type        *string        `json:"type"`
	Environment *string        `json:"environment"`
	Totals      map[string]int `json:"totals"`
	Rates       map[string]float64
	Days        []struct {
		Date   string         `json:"date"`
		Counts map[string]int `json:"counts"`
	} `json:"days"`
}

func decode(t *testing.T, w *httptest.ResponseRecorder) report {
	t.Helper()
	if w.Code != http.StatusOK {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	var body struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
		t.Fatal(err)
	}
	var rep report
	if err := json.Unmarshal(body.Data, &rep); err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Rates map[string]float64 `json:"rates"`
	}
	if err := json.Unmarshal(body.Data, &raw); err != nil {
		t.Fatal(err)
	}
	rep.Rates = raw.Rates
	return rep
}

// counts builds a full Counts: every counted metric, zero unless given.
func counts(kv ...any) map[string]int {
	c := map[string]int{}
	for _, m := range metrics.Counted {
		c[m] = 0
	}
	for i := 0; i+1 < len(kv); i += 2 {
		c[kv[i].(string)] = kv[i+1].(int)
	}
	return c
}

func TestTotalsAndFilters(t *testing.T) {
	const rng = "?from=2026-11-20&to=2026-11-22"
	cases := map[string]struct {
		query string
		want  map[string]int
	}{
		"everything": {rng, counts("sent", 17, "delivered", 12, "opened", 2, "clicked", 1, "bounced", 1, "complained", 2, "failed", 1)},
		"transactional": {rng + "&type=transactional",
			counts("sent", 5, "delivered", 4, "opened", 2, "clicked", 1, "bounced", 1)},
		"campaign":               {rng + "&type=campaign", counts("sent", 10, "delivered", 8, "complained", 2)},
		"automation":             {rng + "&type=automation", counts("sent", 2, "failed", 1)},
		"live":                   {rng + "&environment=live", counts("sent", 15, "delivered", 12, "opened", 2, "clicked", 1, "bounced", 1, "complained", 2)},
		"test":                   {rng + "&environment=test", counts("sent", 2, "failed", 1)},
		"campaign and test":      {rng + "&type=campaign&environment=test", counts()},
		"automation and test":    {rng + "&type=automation&environment=test", counts("sent", 2, "failed", 1)},
		"one day":                {"?from=2026-11-22&to=2026-11-22", counts("sent", 1, "delivered", 1)},
		"days without counters":  {"?from=2026-10-01&to=2026-10-31", counts()},
		"default range: 30 days": {"", counts("sent", 17, "delivered", 12, "opened", 2, "clicked", 1, "bounced", 1, "complained", 2, "failed", 1)},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			h, _ := newHandler()
			w, err := get(t, h, tc.query)
			if err != nil {
				t.Fatalf("Get: %v", err)
			}
			rep := decode(t, w)
			if !reflect.DeepEqual(rep.Totals, tc.want) {
				t.Errorf("totals = %v, want %v", rep.Totals, tc.want)
			}
			sum := counts()
			for _, d := range rep.Days {
				if len(d.Counts) != len(metrics.Counted) {
					t.Errorf("day %s counts %v, want every counted metric", d.Date, d.Counts)
				}
				for k, v := range d.Counts {
					sum[k] += v
				}
			}
			if !reflect.DeepEqual(sum, rep.Totals) {
				t.Errorf("days add up to %v, totals are %v", sum, rep.Totals)
			}
		})
	}
}

func TestReportShape(t *testing.T) {
	h, store := newHandler()
	w, err := get(t, h, "?from=2026-11-20&to=2026-11-22&type=transactional")
	if err != nil {
		t.Fatal(err)
	}
	rep := decode(t, w)
	if rep.From != "2026-11-20" || rep.To != "2026-11-22" || rep.Type == nil || *rep.Type != "transactional" || rep.Environment != nil {
		t.Errorf("from %s to %s type %v environment %v", rep.From, rep.To, rep.Type, rep.Environment)
	}
	if len(store.calls) != 1 || store.calls[0] != "ws_1 2026-11-20 2026-11-22" {
		t.Errorf("store calls %v, want one for the principal's workspace and range", store.calls)
	}
	var dates []string
	for _, d := range rep.Days {
		dates = append(dates, d.Date)
	}
	if want := []string{"2026-11-20", "2026-11-21", "2026-11-22"}; !reflect.DeepEqual(dates, want) {
		t.Errorf("days %v, want every day of the range in order %v", dates, want)
	}
	if rep.Days[1].Counts["sent"] != 0 || rep.Days[0].Counts["sent"] != 4 || rep.Days[2].Counts["delivered"] != 1 {
		t.Errorf("days = %+v", rep.Days)
	}
	// transactional: sent 5, delivered 4, bounced 1, opened 2, clicked 1.
	want := map[string]float64{"delivery_rate": 0.8, "bounce_rate": 0.2, "complaint_rate": 0, "open_rate": 0.5, "click_rate": 0.25}
	if !reflect.DeepEqual(rep.Rates, want) {
		t.Errorf("rates = %v, want %v", rep.Rates, want)
	}
}

func TestRates(t *testing.T) {
	cases := map[string]struct {
		day  map[string]int
		want map[string]float64
	}{
		"nothing sent: zero, not NaN": {map[string]int{}, map[string]float64{"delivery_rate": 0, "bounce_rate": 0, "complaint_rate": 0, "open_rate": 0, "click_rate": 0}},
		"rounded to 4 places": {map[string]int{"campaign_live_sent": 3, "campaign_live_delivered": 2, "campaign_live_opened": 1, "campaign_live_complained": 1, "campaign_live_bounced": 1},
			map[string]float64{"delivery_rate": 0.6667, "bounce_rate": 0.3333, "complaint_rate": 0.5, "open_rate": 0.5, "click_rate": 0}},
		"sent but none delivered": {map[string]int{"campaign_live_sent": 7, "campaign_live_bounced": 7},
			map[string]float64{"delivery_rate": 0, "bounce_rate": 1, "complaint_rate": 0, "open_rate": 0, "click_rate": 0}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			h := metricshttp.Handlers{Metrics: &metrics.Service{Now: func() time.Time { return now }, Store: &fakeStore{daily: func(_, _, _ string) (map[string]map[string]int, error) {
				return map[string]map[string]int{"2026-11-22": tc.day}, nil
			}}}}
			w, err := get(t, h, "")
			if err != nil {
				t.Fatal(err)
			}
			if rep := decode(t, w); !reflect.DeepEqual(rep.Rates, tc.want) {
				t.Errorf("rates = %v, want %v", rep.Rates, tc.want)
			}
		})
	}
}

func TestDefaultRange(t *testing.T) {
	h, store := newHandler()
	w, err := get(t, h, "")
	if err != nil {
		t.Fatal(err)
	}
	rep := decode(t, w)
	if rep.From != "2026-10-24" || rep.To != "2026-11-22" || len(rep.Days) != 30 {
		t.Errorf("default range %s..%s with %d days, want the 30 days through today", rep.From, rep.To, len(rep.Days))
	}
	if store.calls[0] != "ws_1 2026-10-24 2026-11-22" {
		t.Errorf("store asked for %s", store.calls[0])
	}
	// Only from: through today. Only to: the 30 days before it.
	w, err = get(t, h, "?from=2026-11-21")
	if err != nil {
		t.Fatal(err)
	}
	if rep := decode(t, w); rep.From != "2026-11-21" || rep.To != "2026-11-22" {
		t.Errorf("from only: %s..%s", rep.From, rep.To)
	}
	// A full year (leap day included) is allowed: 366 days.
	w, err = get(t, h, "?from=2024-01-01&to=2024-12-31")
	if err != nil {
		t.Fatal(err)
	}
	if rep := decode(t, w); len(rep.Days) != metrics.MaxDays {
		t.Errorf("%d days, want %d", len(rep.Days), metrics.MaxDays)
	}
}

func TestBadInput(t *testing.T) {
	cases := map[string]struct{ query, param string }{
		"from not a date":       {"?from=22-11-2026", "from"},
		"from a month 13":       {"?from=2026-13-01", "from"},
		"from with a time":      {"?from=2026-11-22T00:00:00Z", "from"},
		"from empty":            {"?from=", "from"},
		"to not a date":         {"?from=2026-11-01&to=tomorrow", "to"},
		"to before from":        {"?from=2026-11-22&to=2026-11-21", "to"},
		"from after today":      {"?from=2026-11-23", "to"},
		"range over 366 days":   {"?from=2024-01-01&to=2025-01-01", "from"},
		"type unknown":          {"?type=newsletter", "type"},
		"type empty":            {"?type=", "type"},
		"type in capitals":      {"?type=Campaign", "type"},
		"environment unknown":   {"?environment=prod", "environment"},
		"environment empty":     {"?environment=", "environment"},
		"bad type, good filter": {"?environment=live&type=x", "type"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			h, store := newHandler()
			_, err := get(t, h, tc.query)
			p, ok := httpapi.ProblemOf(err)
			if !ok {
				t.Fatalf("error = %v, want a client error", err)
			}
			if p.Code != httpapi.CodeInvalidField || p.Param != tc.param || p.Message == "" {
				t.Errorf("error = %+v, want invalid_field about %s", p, tc.param)
			}
			if len(store.calls) != 0 {
				t.Errorf("bad input read the store: %v", store.calls)
			}
		})
	}
}

func TestStoreFaultIsNotAClientError(t *testing.T) {
	fault := errors.New("dynamodb unavailable")
	h := metricshttp.Handlers{Metrics: &metrics.Service{Now: func() time.Time { return now }, Store: &fakeStore{daily: func(_, _, _ string) (map[string]map[string]int, error) {
		return nil, fault
	}}}}
	_, err := get(t, h, "")
	if _, ok := httpapi.ProblemOf(err); !errors.Is(err, fault) || ok {
		t.Errorf("error = %v, want the store's fault (a 500, never a client error)", err)
	}
}
