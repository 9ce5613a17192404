package deliverability_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/deliverability"
)

// goodHTML passes every rule: text without images, links on the sender's
// domain (and a subdomain), an unsubscribe link.
const goodHTML = `<!doctype html><html><head><title>News</title><style>p{color:#333}</style></head><body>
<h1>What is new in November</h1>
<p>We shipped faster exports, a calendar view and a cleaner settings page. Each of them came from your
feedback, so thank you for writing to us. The details are on our blog, with screenshots and a short video.</p>
<p><a href="https://www.example.com/blog/november">Read the November notes</a> or reply to this email.</p>
<p><a href="https://example.com/unsubscribe?u=1">Unsubscribe</a></p>
</body></html>`

func good() deliverability.Input {
	return deliverability.Input{Subject: "What is new in November", HTML: goodHTML, SenderDomain: "mail.example.com", Bulk: true}
}

// findings runs Check and returns its findings by id.
func findings(in deliverability.Input) map[deliverability.ID]deliverability.Finding {
	out := map[deliverability.ID]deliverability.Finding{}
	for _, f := range deliverability.Check(in).Checks {
		out[f.ID] = f
	}
	return out
}

// ruleCases checks one rule: it fires on every input of fires and on none
// of quiet.
func ruleCases(t *testing.T, id deliverability.ID, fires, quiet map[string]deliverability.Input) {
	t.Helper()
	for name, in := range fires {
		if _, ok := findings(in)[id]; !ok {
			t.Errorf("%s: %s did not fire; findings %v", name, id, findings(in))
		}
	}
	for name, in := range quiet {
		if f, ok := findings(in)[id]; ok {
			t.Errorf("%s: %s fired: %s", name, id, f.Message)
		}
	}
}

// with returns the good input changed by edit.
func with(edit func(*deliverability.Input)) deliverability.Input {
	in := good()
	edit(&in)
	return in
}

func withHTML(body string) deliverability.Input {
	return with(func(in *deliverability.Input) { in.HTML = body })
}

// withinGood puts snippet into the good HTML, before </body>.
func withinGood(snippet string) deliverability.Input {
	return withHTML(strings.Replace(goodHTML, "</body>", snippet+"</body>", 1))
}

func TestGoodEmailPasses(t *testing.T) {
	got := deliverability.Check(good())
	want := deliverability.Report{
		Verdict: deliverability.Pass, Score: 100, Checks: []deliverability.Finding{},
		Stats: deliverability.Stats{HTMLBytes: len(goodHTML), TextChars: got.Stats.TextChars, Images: 0, Links: 2, LinkDomains: 2},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Check(good) = %+v, want %+v", got, want)
	}
	if got.Stats.TextChars < 200 || got.Stats.TextChars > 300 {
		t.Errorf("text_chars = %d, want the visible text only (about 240)", got.Stats.TextChars)
	}
}

// Score: 100 less each finding's cost (its rule's; spam phrases by
// occurrence, capped), never below 0. Verdict: fail on any critical
// finding or a score below 50, warn on warnings alone, pass on none.
func TestScoreAndVerdict(t *testing.T) {
	caps := with(func(in *deliverability.Input) { in.Subject = "BIG NEWS" })
	capsAndShortener := with(func(in *deliverability.Input) {
		in.Subject = "BIG NEWS"
		in.HTML = strings.Replace(goodHTML, "https://www.example.com/blog/november", "https://bit.ly/x", 1)
	})
	script := withinGood("<script>x()</script>")
	manyWarnings := with(func(in *deliverability.Input) {
		in.Subject = "ACT NOW"
		in.HTML = strings.Replace(goodHTML, "https://www.example.com/blog/november", "https://bit.ly/x", 1) +
			`<img src="a"><img src="b">` + strings.Repeat("<!-- pad -->", deliverability.GmailClipBytes/12+1)
		in.SenderDomain = "other.example"
	})
	threePhrases := withinGood(`<p>Act now, buy now, risk free.</p>`)
	phraseStuffing := withinGood(strings.Repeat(`<p>Act now!</p>`, 20))
	worst := deliverability.Input{Subject: "", HTML: `<form><input type=password></form><script></script><a href="javascript:x()">http://bank.example</a><a href="http://10.0.0.1/">x</a>`, Bulk: true}
	for name, c := range map[string]struct {
		in      deliverability.Input
		score   int
		verdict deliverability.Verdict
	}{
		"good":        {good(), 100, deliverability.Pass},
		"one warning": {caps, 85, deliverability.Warn},
		"capitals and a shortener (not also an unrelated domain)": {capsAndShortener, 75, deliverability.Warn},
		"one critical": {script, 40, deliverability.Fail},
		"warnings only, below 50: capitals 15, phrase 8, images 15, clipped 10, shortener 10, unrelated 5": {manyWarnings, 37, deliverability.Fail},
		"three phrases, 8 each":       {threePhrases, 76, deliverability.Warn},
		"twenty phrases, capped at 8": {phraseStuffing, 36, deliverability.Fail},
		"critical findings, at 0":     {worst, 0, deliverability.Fail},
	} {
		got := deliverability.Check(c.in)
		if got.Score != c.score || got.Verdict != c.verdict {
			t.Errorf("%s: score %d, verdict %s, want %d, %s; findings %+v", name, got.Score, got.Verdict, c.score, c.verdict, got.Checks)
		}
	}
}

// Findings come in the order of Rules, each with its rule's severity.
func TestFindingsInRuleOrder(t *testing.T) {
	in := deliverability.Input{Subject: "FREE STUFF", HTML: `<script>x</script><img src=x><a href="https://bit.ly/a">go</a>`, Bulk: true}
	got := deliverability.Check(in).Checks
	severity := map[deliverability.ID]deliverability.Severity{}
	order := map[deliverability.ID]int{}
	for i, r := range deliverability.Rules {
		severity[r.ID], order[r.ID] = r.Severity, i
	}
	for i, f := range got {
		if f.Severity != severity[f.ID] || f.Message == "" {
			t.Errorf("finding %+v: want severity %s and a message", f, severity[f.ID])
		}
		if i > 0 && order[got[i-1].ID] >= order[f.ID] {
			t.Errorf("%s listed before %s", got[i-1].ID, f.ID)
		}
	}
	if len(got) < 5 {
		t.Errorf("findings %+v, want at least subject_all_caps, no_text, image_heavy, script, url_shortener, no_unsubscribe", got)
	}
}

// Every rule has a distinct id, and docs/api.md documents each.
func TestRulesDocumented(t *testing.T) {
	doc, err := readDoc()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[deliverability.ID]bool{}
	for _, r := range deliverability.Rules {
		if seen[r.ID] {
			t.Errorf("rule %s listed twice", r.ID)
		}
		seen[r.ID] = true
		if !strings.Contains(doc, "`"+string(r.ID)+"`") {
			t.Errorf("docs/api.md does not document rule %s", r.ID)
		}
	}
}
