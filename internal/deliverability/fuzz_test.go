package deliverability_test

import (
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/sesame-mail/sesame/internal/deliverability"
)

// FuzzCheck: any input gets a report that holds together (the score is
// 100 less its findings' costs, the verdict follows from them, each
// finding is a known rule with its severity and a message, the stats
// describe the input) and the same report every time.
func FuzzCheck(f *testing.F) {
	f.Add("What is new", goodHTML, "example.com", true)
	f.Add("", "", "", false)
	f.Add("ACT NOW", `<a href="https://bit.ly/x">https://bank.example</a><img src=x><script>x</script>`, "example.org", true)
	f.Add("risk-free", `<a href=javascript:x><form><input type=password>`, "", false)
	f.Add("x", `<a href="http://[::1]/">unsubscribe</a><a href="%zz">`, "co.uk", true)
	severity := map[deliverability.ID]deliverability.Severity{}
	for _, r := range deliverability.Rules {
		severity[r.ID] = r.Severity
	}
	f.Fuzz(func(t *testing.T, subject, body, sender string, bulk bool) {
		in := deliverability.Input{Subject: subject, HTML: body, SenderDomain: sender, Bulk: bulk}
		r := deliverability.Check(in)
		score, critical := 100, false
		for _, c := range r.Checks {
			want, ok := severity[c.ID]
			if !ok || c.Severity != want || c.Message == "" {
				t.Fatalf("finding %+v: unknown rule, wrong severity or no message", c)
			}
			if c.Cost <= 0 || c.Cost > 100 {
				t.Fatalf("finding %+v: cost out of range", c)
			}
			score -= c.Cost
			critical = critical || c.Severity == deliverability.Critical
		}
		score = max(score, 0)
		verdict := deliverability.Pass
		switch {
		case critical || score < 50:
			verdict = deliverability.Fail
		case len(r.Checks) > 0:
			verdict = deliverability.Warn
		}
		if r.Score != score || r.Verdict != verdict {
			t.Fatalf("score %d, verdict %s; findings give %d, %s", r.Score, r.Verdict, score, verdict)
		}
		s := r.Stats
		if s.HTMLBytes != len(body) || s.TextChars < 0 || s.TextChars > utf8.RuneCountInString(body) ||
			s.Images < 0 || s.Links < 0 || s.LinkDomains < 0 || s.LinkDomains > s.Links {
			t.Fatalf("stats %+v for %d bytes of HTML", s, len(body))
		}
		if again := deliverability.Check(in); !reflect.DeepEqual(again, r) {
			t.Fatalf("not deterministic: %+v then %+v", r, again)
		}
	})
}
