package bench

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/deliverability"
	"github.com/sesame-mail/sesame/internal/deliverability/deliverabilityhttp"
)

// checkBudget is the deliverability check's budget for 100 KB of HTML,
// held by the handler's median (the check with its JSON in and out).
const checkBudget = 50 * time.Millisecond

// BenchmarkDeliverabilityCheck is POST /api/v1/deliverability/check on a
// 100 KB newsletter that passes every check (76 stories, each an image
// and two links): the check alone, and the handler (JSON decode,
// validation, check, JSON answer) without the key lookup, which every
// route shares. It fails over the budget.
func BenchmarkDeliverabilityCheck(b *testing.B) {
	html, err := os.ReadFile("testdata/weekly-100k.html")
	if err != nil {
		b.Fatal(err)
	}
	subject := "The Example Weekly"
	body, err := json.Marshal(map[string]any{"subject": subject, "html": string(html), "from": "news@example.com", "bulk": true})
	if err != nil {
		b.Fatal(err)
	}
	in := deliverability.Input{Subject: subject, HTML: string(html), SenderDomain: "example.com", Bulk: true}
	h := deliverabilityhttp.Handlers{}
	var check, handler []time.Duration
	for b.Loop() {
		start := time.Now()
		deliverability.Check(in)
		check = append(check, time.Since(start))

		req := httptest.NewRequest(http.MethodPost, "/api/v1/deliverability/check", strings.NewReader(string(body)))
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		start = time.Now()
		if err := h.Check(w, req); err != nil || w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"verdict":"pass"`) {
			b.Fatalf("check: %v, %d %s", err, w.Code, w.Body)
		}
		handler = append(handler, time.Since(start))
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(percentile(check, 0.5)), "check-p50-ms")
	b.ReportMetric(ms(percentile(check, 0.99)), "check-p99-ms")
	b.ReportMetric(ms(percentile(handler, 0.5)), "handler-p50-ms")
	b.ReportMetric(ms(percentile(handler, 0.99)), "handler-p99-ms")
	fmt.Printf("deliverability check of %d KB of HTML: p50 %.1f ms (p99 %.1f) alone, p50 %.1f ms (p99 %.1f) through the handler; budget %v\n",
		len(html)>>10, ms(percentile(check, 0.5)), ms(percentile(check, 0.99)),
		ms(percentile(handler, 0.5)), ms(percentile(handler, 0.99)), checkBudget)
	if p50 := percentile(handler, 0.5); p50 > checkBudget {
		b.Errorf("the deliverability check of %d KB takes %v at p50 through its handler, over the %v budget", len(html)>>10, p50, checkBudget)
	}
}
