package deliverability_test

import (
	"os"
	"testing"

	"github.com/sesame-mail/sesame/internal/deliverability"
)

// BenchmarkCheck checks a 100 KB newsletter (76 stories, each with an
// image and two links); the budget is 50 ms (internal/bench holds it).
func BenchmarkCheck(b *testing.B) {
	body, err := os.ReadFile("testdata/newsletter-100k.html")
	if err != nil {
		b.Fatal(err)
	}
	in := deliverability.Input{Subject: "The Example Weekly", HTML: string(body), SenderDomain: "example.com", Bulk: true}
	if r := deliverability.Check(in); r.Verdict != deliverability.Pass {
		b.Fatalf("the newsletter does not pass: %+v", r.Checks)
	}
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		deliverability.Check(in)
	}
}
