package bench

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/review"
)

// reviewRatio is DESIGN's budget for review.Check (≤ 1 ms of CPU per
// 100 KB, in linear time) as a ratio to plainScan of the same bytes,
// measured side by side: plainScan reads 100 KB in about 0.2 ms of this
// machine's CPU, so 1 ms is 5× (docs/decisions.md, "Benchmark budgets").
const reviewRatio = 5

var reviewResults struct {
	sync.Mutex
	all []struct {
		size            int
		p50, scan, best time.Duration
	}
}

// BenchmarkReviewCheck is review.Check, the content checks of every live
// send and review, on the 100 KB newsletter and on 1 MB of it repeated,
// each check followed by plainScan of the same body: CPU time per check,
// whose median fails over reviewRatio times the scan's median. The same
// ratio at both sizes holds the check linear.
func BenchmarkReviewCheck(b *testing.B) {
	html := loadBodies(b)[2].html
	for _, size := range []int{100 << 10, 1 << 20} {
		body := strings.Repeat(html, size/len(html)+1)[:size]
		b.Run(fmt.Sprintf("%d KB", size>>10), func(b *testing.B) {
			var times, scans []time.Duration
			sample := func() {
				start := cpuTime()
				v := review.Check("Northwind: the spring collection", body, []string{"Northwind", "northwind.example"})
				mid := cpuTime()
				plainScan(body)
				times, scans = append(times, mid-start), append(scans, cpuTime()-mid)
				if !v.Cleared {
					b.Fatalf("not cleared: %v", v.Reasons)
				}
			}
			for b.Loop() {
				sample()
			}
			// Four times the usual samples: a median of 25 moved by a quarter
			// between runs when the process's background work (the GC of
			// earlier benchmarks' garbage) landed in a check.
			for len(times) < 4*minSamples {
				sample()
			}
			p50, scan := percentile(times, 0.5), percentile(scans, 0.5)
			ratio := float64(p50) / float64(scan)
			b.ReportMetric(ms(p50), "cpu-p50-ms")
			b.ReportMetric(ms(scan), "scan-p50-ms")
			b.ReportMetric(ratio, "scan-ratio")
			if ratio > reviewRatio {
				b.Errorf("review.Check of %d KB takes %.1f× a plain scan of it at p50 (%v against %v), over %d×", size>>10, ratio, p50, scan, reviewRatio)
			}
			reviewResults.Lock()
			reviewResults.all = append(reviewResults.all, struct {
				size            int
				p50, scan, best time.Duration
			}{size, p50, scan, percentile(times, 0)})
			reviewResults.Unlock()
		})
	}
}

func reviewReport(out io.Writer) {
	reviewResults.Lock()
	defer reviewResults.Unlock()
	if len(reviewResults.all) == 0 {
		return
	}
	fmt.Fprintf(out, "\nreview.Check CPU time (the newsletter's HTML) against a plain scan of the same bytes; budget %d×\n", reviewRatio)
	for _, r := range reviewResults.all {
		ratio := float64(r.p50) / float64(r.scan)
		flag := ""
		if ratio > reviewRatio {
			flag = "  over budget"
		}
		fmt.Fprintf(out, "  %5d KB  p50 %6.3f ms  scan %6.3f ms  %5.1f×  (best %.3f ms)%s\n", r.size>>10, ms(r.p50), ms(r.scan), ratio, ms(r.best), flag)
	}
}
