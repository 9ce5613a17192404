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

// reviewBudget is DESIGN's budget for review.Check, by body size.
var reviewBudget = map[int]time.Duration{100 << 10: time.Millisecond, 1 << 20: 10 * time.Millisecond}

var reviewResults struct {
	sync.Mutex
	all []struct {
		size     int
		p50, min time.Duration
	}
}

// BenchmarkReviewCheck is review.Check, the content checks of every live
// send and review, on the 100 KB newsletter and on 1 MB of it repeated:
// CPU time per check, whose median fails over reviewBudget.
func BenchmarkReviewCheck(b *testing.B) {
	html := loadBodies(b)[2].html
	for _, size := range []int{100 << 10, 1 << 20} {
		body := strings.Repeat(html, size/len(html)+1)[:size]
		b.Run(fmt.Sprintf("%d KB", size>>10), func(b *testing.B) {
			var times []time.Duration
			for b.Loop() {
				start := cpuTime()
				v := review.Check("Northwind: the spring collection", body, []string{"Northwind", "northwind.example"})
				times = append(times, cpuTime()-start)
				if !v.Cleared {
					b.Fatalf("not cleared: %v", v.Reasons)
				}
			}
			p50 := percentile(times, 0.5)
			b.ReportMetric(ms(p50), "cpu-p50-ms")
			if p50 > reviewBudget[size] {
				b.Errorf("review.Check of %d KB takes %v of CPU at p50, over the %v budget", size>>10, p50, reviewBudget[size])
			}
			reviewResults.Lock()
			reviewResults.all = append(reviewResults.all, struct {
				size     int
				p50, min time.Duration
			}{size, p50, percentile(times, 0)})
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
	fmt.Fprintf(out, "\nreview.Check CPU time (the newsletter's HTML; budget ≤ 1 ms for 100 KB, ≤ 10 ms for 1 MB)\n")
	for _, r := range reviewResults.all {
		flag := ""
		if r.p50 > reviewBudget[r.size] {
			flag = "  over budget"
		}
		fmt.Fprintf(out, "  %5d KB  p50 %6.3f ms  (best %.3f ms; budget %v)%s\n", r.size>>10, ms(r.p50), ms(r.min), reviewBudget[r.size], flag)
	}
}
