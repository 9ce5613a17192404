package deliverability_test

import (
	"bufio"
	"html"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/deliverability"
	"github.com/sesame-mail/sesame/internal/identity"
)

// The calibration goal (issue 20): on the corpus, every message
// SpamAssassin scores at least saSpam fails, every message under saHam
// but the corpus's phishing passes or warns without a critical finding,
// and the check's ranking agrees with SpamAssassin's (Spearman's rho at
// least minRho, without that phishing).
const (
	saSpam = 5.0
	saHam  = 2.0
	minRho = 0.9
)

// scored is one corpus message: SpamAssassin's score and rules, as
// testdata/score.sh recorded them, and the check's report.
type scored struct {
	file   string
	sa     float64
	rules  string
	report deliverability.Report
}

// phishPrefix labels the corpus's phishing: offline, SpamAssassin has no
// URI blocklists and scores most of it under 2, while /send's review
// holds it. Its low scores are the one place the two judges cannot agree,
// so the "under saHam" goal leaves it out, and rho is reported without it
// as well as on every message.
const phishPrefix = "spam-phish-"

// TestCalibration holds the check to SpamAssassin's judgement on the
// corpus in testdata/corpus (scores in testdata/scores.tsv). It reads the
// committed scores, so it needs no SpamAssassin.
func TestCalibration(t *testing.T) {
	msgs := scoreCorpus(t)
	if len(msgs) < 60 {
		t.Fatalf("the corpus has %d scored messages, want at least 60", len(msgs))
	}
	spam, ham, held := 0, 0, 0
	var phishLow, phishLowFail int
	var agreeable []scored // every message but phishing SpamAssassin scores under saHam
	for _, m := range msgs {
		if heldByReview(m.report) {
			held++
			if m.report.Verdict != deliverability.Fail {
				t.Errorf("%s: held by the review but check %s/%d %v; want fail", m.file, m.report.Verdict, m.report.Score, ids(m.report))
			}
		}
		phish := strings.HasPrefix(m.file, phishPrefix)
		switch {
		case m.sa >= saSpam:
			spam++
			if m.report.Verdict != deliverability.Fail {
				t.Errorf("%s: SpamAssassin %.1f (%s), check %s/%d %v; want fail", m.file, m.sa, m.rules, m.report.Verdict, m.report.Score, ids(m.report))
			}
		case m.sa < saHam && phish:
			phishLow++
			if m.report.Verdict == deliverability.Fail {
				phishLowFail++
			}
			continue
		case m.sa < saHam:
			ham++
			if m.report.Verdict == deliverability.Fail || critical(m.report) {
				t.Errorf("%s: SpamAssassin %.1f (%s), check %s/%d %v; want pass or warn, nothing critical", m.file, m.sa, m.rules, m.report.Verdict, m.report.Score, ids(m.report))
			}
		}
		agreeable = append(agreeable, m)
	}
	rhoAll, rho := Spearman(msgs), Spearman(agreeable)
	t.Logf("calibration: %d messages; %d SpamAssassin >= %.0f (all fail); %d under %.0f not labelled phishing (none fail or critical); %d phishing under %.0f (%d fail: the check catches what SpamAssassin offline misses); %d held by the security review (all fail)",
		len(msgs), spam, saSpam, ham, saHam, phishLow, saHam, phishLowFail, held)
	t.Logf("calibration: Spearman rho %.3f on the %d messages without that phishing (goal >= %.1f), %.3f on all %d",
		rho, len(agreeable), minRho, rhoAll, len(msgs))
	for _, m := range msgs {
		t.Logf("  %-24s SA %5.1f  check %-4s %3d  %v", m.file, m.sa, m.report.Verdict, m.report.Score, ids(m.report))
	}
	if phishLowFail < phishLow {
		t.Errorf("%d of the %d phishing messages SpamAssassin scores under %.0f fail the check, want all", phishLowFail, phishLow, saHam)
	}
	if rho < minRho {
		t.Errorf("Spearman rho between the check's spamminess and SpamAssassin's score is %.3f, want at least %.1f", rho, minRho)
	}
}

// Spearman is the rank correlation between SpamAssassin's score and the
// check's spamminess (100 minus its score: both grow with spam), ties
// taking their average rank.
func Spearman(msgs []scored) float64 {
	sa, ours := make([]float64, len(msgs)), make([]float64, len(msgs))
	for i, m := range msgs {
		sa[i], ours[i] = m.sa, float64(100-m.report.Score)
	}
	return pearson(ranks(sa), ranks(ours))
}

func ranks(v []float64) []float64 {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmpFloat(v[a], v[b]) })
	r := make([]float64, len(v))
	for i := 0; i < len(idx); {
		j := i
		for j < len(idx) && v[idx[j]] == v[idx[i]] {
			j++
		}
		for k := i; k < j; k++ {
			r[idx[k]] = float64(i+j+1) / 2 // ranks i+1..j, averaged
		}
		i = j
	}
	return r
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func pearson(x, y []float64) float64 {
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx /= float64(len(x))
	my /= float64(len(y))
	var sxy, sxx, syy float64
	for i := range x {
		sxy += (x[i] - mx) * (y[i] - my)
		sxx += (x[i] - mx) * (x[i] - mx)
		syy += (y[i] - my) * (y[i] - my)
	}
	if sxx == 0 || syy == 0 {
		return 0
	}
	return sxy / sqrt(sxx*syy)
}

// sqrt by Newton's method keeps math out of a test of ranks.
func sqrt(x float64) float64 {
	z := x
	for range 60 {
		z = (z + x/z) / 2
	}
	return z
}

func TestSpearman(t *testing.T) {
	mk := func(sa float64, score int) scored {
		return scored{sa: sa, report: deliverability.Report{Score: score}}
	}
	cases := map[string]struct {
		msgs []scored
		want float64
	}{
		"same order":     {[]scored{mk(0, 100), mk(3, 80), mk(9, 10)}, 1},
		"reversed order": {[]scored{mk(0, 10), mk(3, 80), mk(9, 100)}, -1},
		// Ranks (1, 2, 3, 4) against (1.5, 1.5, 3.5, 3.5).
		"ties": {[]scored{mk(0, 100), mk(1, 100), mk(6, 20), mk(9, 20)}, 0.894},
	}
	for name, tc := range cases {
		if got := Spearman(tc.msgs); got < tc.want-0.001 || got > tc.want+0.001 {
			t.Errorf("%s: rho = %.3f, want %.3f", name, got, tc.want)
		}
	}
}

// scoreCorpus reads scores.tsv and checks each message it names.
func scoreCorpus(t testing.TB) []scored {
	f, err := os.Open("testdata/scores.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []scored
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		if len(cols) != 3 {
			t.Fatalf("scores.tsv: %q has %d columns, want 3", line, len(cols))
		}
		sa, err := strconv.ParseFloat(cols[1], 64)
		if err != nil {
			t.Fatalf("scores.tsv: %q: %v", line, err)
		}
		in := corpusInput(t, filepath.Join("testdata/corpus", cols[0]))
		out = append(out, scored{file: cols[0], sa: sa, rules: cols[2], report: deliverability.Check(in)})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	// Every message of the corpus is scored: score.sh was run after the
	// last one was added.
	files, err := filepath.Glob("testdata/corpus/*.eml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(out) {
		t.Fatalf("%d messages in testdata/corpus, %d scored in scores.tsv: run testdata/score.sh", len(files), len(out))
	}
	return out
}

// corpusInput reads an .eml as the check would see the email sent by a
// workspace that owns its sender's domain: its subject, its HTML part (a
// text-only message's text as preformatted HTML), its unsubscribe
// headers, and bulk when it carries List-Unsubscribe.
func corpusInput(t testing.TB, path string) deliverability.Input {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	msg, err := mail.ReadMessage(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	from, err := mail.ParseAddress(msg.Header.Get("From"))
	if err != nil {
		t.Fatalf("%s: From: %v", path, err)
	}
	subject, err := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	if err != nil {
		t.Fatalf("%s: Subject: %v", path, err)
	}
	htmlPart, textPart := parts(t, path, msg.Header.Get("Content-Type"), msg.Header.Get("Content-Transfer-Encoding"), msg.Body)
	if htmlPart == "" {
		htmlPart = "<pre>" + html.EscapeString(textPart) + "</pre>"
	}
	domain := identity.DomainOf(from.Address)
	headers := map[string]string{}
	for _, h := range []string{"List-Unsubscribe", "List-Unsubscribe-Post"} {
		if v := msg.Header.Get(h); v != "" {
			headers[h] = v
		}
	}
	return deliverability.Input{
		Subject: subject, HTML: htmlPart, SenderDomain: domain,
		Bulk: headers["List-Unsubscribe"] != "", Headers: headers, OwnBrands: []string{domain},
	}
}

// parts returns the HTML and plain-text parts of a body of the given
// Content-Type, decoded.
func parts(t testing.TB, path, contentType, encoding string, body io.Reader) (htmlPart, textPart string) {
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		t.Fatalf("%s: Content-Type: %v", path, err)
	}
	if strings.HasPrefix(mt, "multipart/") {
		mr := multipart.NewReader(body, params["boundary"])
		for {
			p, err := mr.NextPart() // decodes quoted-printable itself
			if err == io.EOF {
				return htmlPart, textPart
			}
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			h, tx := parts(t, path, p.Header.Get("Content-Type"), p.Header.Get("Content-Transfer-Encoding"), p)
			htmlPart, textPart = htmlPart+h, textPart+tx
		}
	}
	if strings.EqualFold(encoding, "quoted-printable") {
		body = quotedprintable.NewReader(body)
	}
	b, err := io.ReadAll(body)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if mt == "text/html" {
		return string(b), ""
	}
	return "", string(b)
}

func ids(r deliverability.Report) []deliverability.ID {
	var out []deliverability.ID
	for _, f := range r.Checks {
		out = append(out, f.ID)
	}
	return out
}

// heldByReview reports whether r has a critical finding of the security
// review's rules: /send would hold the email.
func heldByReview(r deliverability.Report) bool {
	for _, f := range r.Checks {
		if f.Severity == deliverability.Critical && deliverability.ReviewRule(f.ID) {
			return true
		}
	}
	return false
}

func critical(r deliverability.Report) bool {
	for _, f := range r.Checks {
		if f.Severity == deliverability.Critical {
			return true
		}
	}
	return false
}
