// Package deliverability is the content check of an email before it goes
// out: rules that spam filters and mailbox providers apply to a message's
// subject, HTML and links, each with a severity, a score out of 100 and a
// verdict. It is deterministic and calls nothing: the same input always
// gives the same report. POST /api/v1/deliverability/check serves it
// (deliverabilityhttp), and bulk drafts show its report to the approver.
package deliverability

import (
	"fmt"
	"net/netip"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/publicsuffix"

	"github.com/sesame-mail/sesame/internal/compose"
)

// Input is what is checked.
type Input struct {
	Subject string
	HTML    string
	// SenderDomain is the domain the email is from (lower case); "" when
	// unknown, and then link domains are not compared with it.
	SenderDomain string
	// Bulk is marketing to many recipients: it must offer a way to
	// unsubscribe.
	Bulk bool
	// FooterAdded says Sesame adds its unsubscribe footer and
	// List-Unsubscribe headers when it sends (campaigns): the HTML itself
	// then needs no unsubscribe link.
	FooterAdded bool
}

// Severity is how much a finding weighs.
type Severity string

const (
	// Warning lowers the score; the email may still land in the inbox.
	Warning Severity = "warning"
	// Critical fails the check: filters reject or junk such mail, or it
	// breaks the law or a provider's sender rules.
	Critical Severity = "critical"
)

// Deductions from the score of 100 per finding, by severity.
const (
	warningCost  = 10
	criticalCost = 30
	// failBelow: warnings alone fail the check when they take the score
	// below this (six or more).
	failBelow = 50
)

// Verdict is the outcome of the check.
type Verdict string

const (
	Pass Verdict = "pass" // no finding
	Warn Verdict = "warn" // warnings only, score at least failBelow
	Fail Verdict = "fail" // a critical finding, or a score below failBelow
)

// ID names a rule; a finding carries its rule's.
type ID string

// The rules, each documented with its reason in docs/api.md.
const (
	NoText              ID = "no_text"
	ImageHeavy          ID = "image_heavy"
	HTMLClipped         ID = "html_clipped"
	DeceptiveLink       ID = "deceptive_link"
	IPLink              ID = "ip_link"
	URLShortener        ID = "url_shortener"
	UnrelatedLinkDomain ID = "unrelated_link_domain"
	SubjectEmpty        ID = "subject_empty"
	SubjectAllCaps      ID = "subject_all_caps"
	NoUnsubscribe       ID = "no_unsubscribe"
	Script              ID = "script"
	Form                ID = "form"
	PasswordField       ID = "password_field"
	JavascriptURL       ID = "javascript_url"
	SpamPhrases         ID = "spam_phrases"
	// SecurityReview is a problem the security review (internal/review)
	// finds that no rule above names.
	SecurityReview ID = "security_review"
)

// Rule is a rule's id and severity.
type Rule struct {
	ID       ID
	Severity Severity
}

// Rules lists every rule, in the order a report lists its findings.
var Rules = []Rule{
	{SubjectEmpty, Critical},
	{SubjectAllCaps, Warning},
	{NoText, Critical},
	{ImageHeavy, Warning},
	{HTMLClipped, Warning},
	{Script, Critical},
	{Form, Critical},
	{PasswordField, Critical},
	{JavascriptURL, Critical},
	{DeceptiveLink, Critical},
	{IPLink, Critical},
	{URLShortener, Warning},
	{UnrelatedLinkDomain, Warning},
	{NoUnsubscribe, Critical},
	{SpamPhrases, Warning},
	{SecurityReview, Critical},
}

// Thresholds of the size rules.
const (
	// GmailClipBytes: Gmail shows "[Message clipped]" past 102 KB of HTML
	// and hides the rest, footer and unsubscribe link included.
	GmailClipBytes = 102 * 1024
	// textPerImage is the least visible text per image below which an
	// email reads as image-heavy.
	textPerImage = 200
	// capsLetters is the fewest cased letters an all-caps subject has
	// before it counts ("OK" or "FAQ" do not shout).
	capsLetters = 4
	// listed bounds how many domains or phrases a message names.
	listed = 5
)

// Finding is one rule that fired.
type Finding struct {
	ID       ID       `json:"id"`
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
}

// Stats describe the HTML checked.
type Stats struct {
	HTMLBytes int `json:"html_bytes"`
	// TextChars counts the visible text's characters (outside script,
	// style, title and template), white space left out.
	TextChars int `json:"text_chars"`
	Images    int `json:"images"`
	// Links counts the <a> elements with a target.
	Links int `json:"links"`
	// LinkDomains counts the distinct hosts of the http(s) links.
	LinkDomains int `json:"link_domains"`
}

// Report is the outcome of Check.
type Report struct {
	Verdict Verdict   `json:"verdict"`
	Score   int       `json:"score"`
	Checks  []Finding `json:"checks"`
	Stats   Stats     `json:"stats"`
}

// Check applies every rule to in. It reads the HTML a bounded number of
// times, each linear in its length.
func Check(in Input) Report {
	p := readPage(in.HTML)
	found := map[ID]string{}
	checkSubject(in.Subject, found)
	checkBody(in, p, found)
	checkMarkup(in.HTML, found)
	checkLinkDomains(in.SenderDomain, p.hosts, found)
	if in.Bulk && !in.FooterAdded && !p.unsubscribe {
		found[NoUnsubscribe] = "Bulk email must let its recipients unsubscribe: add a link whose text or address says unsubscribe (Sesame's campaigns add their footer and one-click List-Unsubscribe themselves)."
	}
	if phrases := spamPhrasesIn(in.Subject, compose.HTMLToText(in.HTML)); len(phrases) > 0 {
		found[SpamPhrases] = "Phrases spam filters score: " + quoteList(phrases) + "."
	}
	return report(found, Stats{
		HTMLBytes: len(in.HTML), TextChars: p.visible, Images: p.images,
		Links: p.links, LinkDomains: len(p.hosts),
	})
}

// report orders the findings by Rules and scores them.
func report(found map[ID]string, stats Stats) Report {
	r := Report{Verdict: Pass, Score: 100, Checks: []Finding{}, Stats: stats}
	critical := false
	for _, rule := range Rules {
		msg, ok := found[rule.ID]
		if !ok {
			continue
		}
		r.Checks = append(r.Checks, Finding{ID: rule.ID, Severity: rule.Severity, Message: msg})
		if rule.Severity == Critical {
			critical = true
			r.Score -= criticalCost
		} else {
			r.Score -= warningCost
		}
	}
	r.Score = max(r.Score, 0)
	switch {
	case critical || r.Score < failBelow:
		r.Verdict = Fail
	case len(r.Checks) > 0:
		r.Verdict = Warn
	}
	return r
}

func checkSubject(s string, found map[ID]string) {
	if strings.TrimFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.Is(unicode.Cf, r) }) == "" {
		found[SubjectEmpty] = "The subject is empty: filters score an email without one as spam, and readers skip it."
		return
	}
	upper, lower := 0, 0
	for _, r := range s {
		switch {
		case unicode.IsUpper(r):
			upper++
		case unicode.IsLower(r):
			lower++
		}
	}
	if lower == 0 && upper >= capsLetters {
		found[SubjectAllCaps] = "The subject is in capitals only: filters score shouting subjects as spam."
	}
}

func checkBody(in Input, p page, found map[ID]string) {
	if p.visible == 0 {
		found[NoText] = "The HTML has no visible text, so the plain-text part Sesame derives from it is empty: filters score image-only or empty mail as spam, and text-only readers see nothing."
	}
	if p.images > 0 && p.visible < textPerImage*p.images {
		found[ImageHeavy] = fmt.Sprintf("%d image(s) and %d characters of text: with less than %d characters of text per image, filters read the email as image-heavy, and many readers see it with images off.", p.images, p.visible, textPerImage)
	}
	if len(in.HTML) > GmailClipBytes {
		found[HTMLClipped] = fmt.Sprintf("The HTML is %d bytes; Gmail clips a message past %d (102 KB) and hides the rest, the footer and its unsubscribe link included.", len(in.HTML), GmailClipBytes)
	}
}

func checkLinkDomains(sender string, hosts []string, found map[ID]string) {
	sender = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(sender)), ".")
	if sender == "" {
		return
	}
	own := organization(sender)
	var foreign []string
	for _, h := range hosts {
		if _, err := netip.ParseAddr(h); err == nil {
			continue // ip_link's finding
		}
		if organization(h) != own {
			foreign = append(foreign, h)
		}
	}
	if len(foreign) > 0 {
		found[UnrelatedLinkDomain] = fmt.Sprintf("Links go to domains unrelated to the sender's (%s): %s. Filters compare link domains with the sender's; links on your own domain read as yours.", sender, quoteList(foreign))
	}
}

// organization is host's registrable domain (example.co.uk for
// mail.example.co.uk), or host itself when it has none.
func organization(host string) string {
	if d, err := publicsuffix.EffectiveTLDPlusOne(host); err == nil {
		return d
	}
	return host
}

// quoteList quotes the first few of items, saying how many more there are.
func quoteList(items []string) string {
	shown := items[:min(len(items), listed)]
	q := make([]string, len(shown))
	for i, s := range shown {
		q[i] = fmt.Sprintf("%q", s)
	}
	out := strings.Join(q, ", ")
	if more := len(items) - len(shown); more > 0 {
		out += fmt.Sprintf(" and %d more", more)
	}
	return out
}

// visibleChars counts the runes of text that show: not white space, not
// an invisible format character (a zero-width space).
func visibleChars(text []byte) int {
	n := 0
	for len(text) > 0 {
		r, size := utf8.DecodeRune(text)
		text = text[size:]
		if !unicode.IsSpace(r) && !unicode.Is(unicode.Cf, r) {
			n++
		}
	}
	return n
}
