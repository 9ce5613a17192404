package deliverability_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/sys/unix"

	"github.com/sesame-mail/sesame/internal/deliverability"
)

// BenchmarkCheck is the check of the 100 KB newsletter internal/bench
// times through the handler, here alone, beside one plain pass of the
// HTML tokenizer over the same bytes: the check reads the HTML a few
// times, so its time is a small multiple of that pass.
func BenchmarkCheck(b *testing.B) {
	page, err := os.ReadFile("../bench/testdata/weekly-100k.html")
	if err != nil {
		b.Fatal(err)
	}
	in := deliverability.Input{Subject: "The Example Weekly", HTML: string(page), SenderDomain: "example.com", Bulk: true}
	if r := deliverability.Check(in); r.Verdict != deliverability.Pass {
		b.Fatalf("the newsletter gets %s: %+v", r.Verdict, r.Checks)
	}
	b.Run("check", func(b *testing.B) {
		start := cpuTime()
		for b.Loop() {
			deliverability.Check(in)
		}
		b.ReportMetric(float64(cpuTime()-start)/float64(b.N)/1e6, "cpu-ms/op")
	})
	b.Run("plain scan", func(b *testing.B) {
		start := cpuTime()
		for b.Loop() {
			z := html.NewTokenizer(strings.NewReader(in.HTML))
			for z.Next() != html.ErrorToken {
			}
		}
		b.ReportMetric(float64(cpuTime()-start)/float64(b.N)/1e6, "cpu-ms/op")
	})
}

// cpuTime is the CPU time of the process, all threads: on a loaded
// machine wall time says more about the neighbours than the check.
func cpuTime() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}
