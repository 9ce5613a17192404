package deliverability_test

import (
	"os"
	"testing"

	"github.com/sesame-mail/sesame/internal/deliverability"
)

// BenchmarkCheck is the check of the 100 KB newsletter internal/bench
// times through the handler, here alone, for profiling.
func BenchmarkCheck(b *testing.B) {
	html, err := os.ReadFile("../bench/testdata/weekly-100k.html")
	if err != nil {
		b.Fatal(err)
	}
	in := deliverability.Input{Subject: "The Example Weekly", HTML: string(html), SenderDomain: "example.com", Bulk: true}
	if r := deliverability.Check(in); r.Verdict != deliverability.Pass {
		b.Fatalf("the newsletter gets %s: %+v", r.Verdict, r.Checks)
	}
	for b.Loop() {
		deliverability.Check(in)
	}
}
