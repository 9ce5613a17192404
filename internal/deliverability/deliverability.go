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

	"github.com/sesame-mail/sesame/internal/compose"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/review"
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
	// Headers are the message's own headers as it will be sent
	// (List-Unsubscribe, List-Unsubscribe-Post); nil when unknown (HTML
	// alone), and then the one-click rule is not applied.
	Headers map[string]string
	// OwnBrands are the workspace's name, brands and verified domains
	// (workspace.OwnBrands): the security review holds email naming an
	// impersonated brand not among them, and so the check fails it.
	OwnBrands []string
	// Own are the stack's base URLs (its public URL, the address the check
	// was asked at): links under them are Sesame's own (unsubscribe,
	// tracking, dashboard) and never findings.
	Own []string
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

// failBelow: warnings alone fail the check when their costs take the
// score below this.
const failBelow = 50

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
	LittleText          ID = "little_text_with_images"
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
	TextAllCaps         ID = "text_all_caps"
	LargeSums           ID = "large_sums"
	ForeignBrand        ID = "foreign_brand"
	NoOneClick          ID = "no_one_click_unsubscribe"
	// SecurityReview is a problem the security review (internal/review)
	// finds that no rule above names.
	SecurityReview ID = "security_review"
)

// Rule is a rule's id, severity and cost: what a finding of it takes
// from the score of 100. The costs are calibrated on a corpus scored by
// SpamAssassin (calibration_test.go); spam_phrases costs phraseCost per
// occurrence, up to phraseCap occurrences.
type Rule struct {
	ID       ID
	Severity Severity
	Cost     int
}

// Rules lists every rule, in the order a report lists its findings.
var Rules = []Rule{
	{SubjectEmpty, Critical, criticalCost},
	{SubjectAllCaps, Warning, 15},
	{TextAllCaps, Warning, 15},
	{NoText, Critical, criticalCost},
	{ImageHeavy, Warning, 15},
	{LittleText, Warning, 8},
	{HTMLClipped, Warning, 10},
	{Script, Critical, criticalCost},
	{Form, Critical, criticalCost},
	{PasswordField, Critical, criticalCost},
	{JavascriptURL, Critical, criticalCost},
	{ForeignBrand, Critical, criticalCost},
	{DeceptiveLink, Critical, criticalCost},
	{IPLink, Critical, criticalCost},
	{URLShortener, Warning, 10},
	{UnrelatedLinkDomain, Warning, 5},
	{NoUnsubscribe, Critical, criticalCost},
	{NoOneClick, Warning, 10},
	{SpamPhrases, Warning, phraseCost},
	{LargeSums, Warning, 20},
	{SecurityReview, Critical, criticalCost},
}

// criticalCost is what a critical finding costs: it fails the check
// anyway, and ranks it among the worst.
const criticalCost = 60

// Spam phrases cost by occurrence: repeated evidence counts, up to a cap.
const (
	phraseCost = 8
	phraseCap  = 8
)

// Thresholds of the size rules.
const (
	// GmailClipBytes: Gmail shows "[Message clipped]" past 102 KB of HTML
	// and hides the rest, footer and unsubscribe link included.
	GmailClipBytes = 102 * 1024
	// textPerImage is the least visible text per image below which an
	// email reads as image-heavy.
	textPerImage = 200
	// imageText is the least visible text an email with images has
	// before filters stop counting it as mostly pictures (SpamAssassin's
	// HTML_IMAGE_ONLY rules look for under 3,200 bytes of words).
	imageText = 2500
	// bareText is the text under which an image-heavy email is pictures
	// with a caption, and costs imageBareCost instead of its rule's.
	bareText      = 100
	imageBareCost = 25
	// capsLetters is the fewest cased letters an all-caps subject has
	// before it counts ("OK" or "FAQ" do not shout).
	capsLetters = 4
	// listed bounds how many domains or phrases a message names.
	listed = 5
	// capsText is the fewest cased letters of visible text, and capsShare
	// the share of them in capitals, from which the text shouts.
	capsText  = 40
	capsShare = 0.7
)

// Finding is one rule that fired.
type Finding struct {
	ID       ID       `json:"id"`
	Severity Severity `json:"severity"`
	// Cost is what the finding takes from the score.
	Cost    int    `json:"cost"`
	Message string `json:"message"`
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
	// LinkDomains counts the distinct hosts of the http(s) links, Sesame's
	// own left out.
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
	p := readPage(in.HTML, in.Own)
	found := map[ID]string{}
	costs := map[ID]int{}
	checkSubject(in.Subject, found)
	checkBody(in, p, found, costs)
	checkReview(in, found)
	checkLinkDomains(in.SenderDomain, p.hosts, found)
	if in.Bulk && !p.unsubscribe {
		found[NoUnsubscribe] = "Bulk email must let its recipients unsubscribe: add a link whose text or address says unsubscribe (Sesame's campaigns add their footer and one-click List-Unsubscribe themselves)."
	}
	if in.Bulk && in.Headers != nil && !oneClick(in.Headers) {
		found[NoOneClick] = "Bulk email needs List-Unsubscribe with an https link and List-Unsubscribe-Post (RFC 8058): Gmail and Yahoo require one-click unsubscribing from bulk senders."
	}
	text := compose.HTMLToText(in.HTML)
	if shouts(text) {
		found[TextAllCaps] = "Most of the text is in capitals: filters score shouting bodies as spam."
	}
	if phrases, n := spamPhrasesIn(in.Subject, text); n > 0 {
		found[SpamPhrases] = fmt.Sprintf("Phrases spam filters score, %d time(s): %s.", n, quoteList(phrases))
		costs[SpamPhrases] = phraseCost * min(n, phraseCap)
	}
	if sum, ok := largeSum(in.Subject, text); ok {
		found[LargeSums] = fmt.Sprintf("The email names a sum of a million or more (%q): lottery and advance-fee fraud name such sums, and filters score them.", sum)
	}
	return report(found, costs, Stats{
		HTMLBytes: len(in.HTML), TextChars: p.visible, Images: p.images,
		Links: p.links, LinkDomains: len(p.hosts),
	})
}

// Context is what the check of a message as it will be sent knows besides
// the message: whether it is bulk, the workspace's brands and the stack's
// base URLs (Input's fields of the same names).
type Context struct {
	Bulk      bool
	OwnBrands []string
	Own       []string
}

// CheckMessage checks m as it will be sent: rendered for one recipient
// (merge tags filled in) and, for list mail, with the footer and headers
// Sesame adds (listmail.WithUnsubscribe). Its headers are read, so bulk
// mail is held to one-click unsubscribing too.
func CheckMessage(m compose.Message, c Context) Report {
	headers := m.Headers
	if headers == nil {
		headers = map[string]string{}
	}
	return Check(Input{
		Subject: m.Subject, HTML: m.HTML, SenderDomain: identity.DomainOf(m.From.Address), Bulk: c.Bulk,
		Headers: headers, OwnBrands: c.OwnBrands, Own: c.Own,
	})
}

// report orders the findings by Rules and scores them: each costs its
// rule's cost, or costs' own for the rules that count occurrences.
func report(found map[ID]string, costs map[ID]int, stats Stats) Report {
	r := Report{Verdict: Pass, Score: 100, Checks: []Finding{}, Stats: stats}
	critical := false
	for _, rule := range Rules {
		msg, ok := found[rule.ID]
		if !ok {
			continue
		}
		cost, ok := costs[rule.ID]
		if !ok {
			cost = rule.Cost
		}
		r.Checks = append(r.Checks, Finding{ID: rule.ID, Severity: rule.Severity, Cost: cost, Message: msg})
		critical = critical || rule.Severity == Critical
		r.Score -= cost
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

// shouts reports whether text is mostly capitals: at least capsText cased
// letters, capsShare of them upper case.
func shouts(text string) bool {
	upper, cased := 0, 0
	for _, r := range text {
		switch {
		case unicode.IsUpper(r):
			upper++
			cased++
		case unicode.IsLower(r):
			cased++
		}
	}
	return cased >= capsText && float64(upper) >= capsShare*float64(cased)
}

// oneClick reports whether headers offer RFC 8058 one-click unsubscribing:
// List-Unsubscribe with an https (or, locally, http) link, and
// List-Unsubscribe-Post.
func oneClick(headers map[string]string) bool {
	var list, post string
	for k, v := range headers {
		switch {
		case strings.EqualFold(k, compose.HeaderListUnsubscribe):
			list = v
		case strings.EqualFold(k, compose.HeaderListUnsubscribePost):
			post = v
		}
	}
	return strings.Contains(list, "<http") && strings.EqualFold(strings.TrimSpace(post), "List-Unsubscribe=One-Click")
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

func checkBody(in Input, p page, found map[ID]string, costs map[ID]int) {
	if p.visible == 0 {
		found[NoText] = "The HTML has no visible text, so the plain-text part Sesame derives from it is empty: filters score image-only or empty mail as spam, and text-only readers see nothing."
	}
	switch {
	case p.images > 0 && p.visible < textPerImage*p.images:
		if p.visible < bareText {
			costs[ImageHeavy] = imageBareCost
		}
		found[ImageHeavy] = fmt.Sprintf("%d image(s) and %d characters of text: with less than %d characters of text per image, filters read the email as image-heavy, and many readers see it with images off.", p.images, p.visible, textPerImage)
	case p.images > 0 && p.visible < imageText:
		found[LittleText] = fmt.Sprintf("%d image(s) and %d characters of text: filters score email with images and less than about %d characters of text a little (SpamAssassin's HTML_IMAGE_ONLY rules).", p.images, p.visible, imageText)
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
	own := review.Organization(sender)
	var foreign []string
	for _, h := range hosts {
		if _, err := netip.ParseAddr(h); err == nil || review.IsShortener(h) {
			continue // ip_link's or url_shortener's finding
		}
		if review.Organization(h) != own {
			foreign = append(foreign, h)
		}
	}
	if len(foreign) > 0 {
		found[UnrelatedLinkDomain] = fmt.Sprintf("Links go to domains unrelated to the sender's (%s): %s. Filters compare link domains with the sender's; links on your own domain read as yours.", sender, quoteList(foreign))
	}
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
