// Package review is the quick security review of API email: the template
// fingerprint that decides when an email is new enough to hold, the check
// for brands the workspace does not own, and the automated verdict that
// clears a held template or not.
package review

import (
	"crypto/sha256"
	"encoding/hex"
	"net/netip"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"

	"golang.org/x/net/html"
)

// Fingerprint identifies an email's template: SHA-256 over the sequence of
// its HTML element names and attribute names. Text, attribute values and
// the subject are left out, so the same layout sent to different people
// with different names, links and amounts is one template, while a new
// layout is a new one.
func Fingerprint(body string) string {
	h := sha256.New()
	z := html.NewTokenizer(strings.NewReader(body))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken && tt != html.EndTagToken {
			continue
		}
		name, hasAttr := z.TagName()
		h.Write([]byte{byte(tt)})
		h.Write(name)
		var attrs []string
		for hasAttr {
			var k []byte
			k, _, hasAttr = z.TagAttr()
			attrs = append(attrs, string(k))
		}
		slices.Sort(attrs) // attribute order does not change a layout
		for _, a := range attrs {
			h.Write([]byte{' '})
			h.Write([]byte(a))
		}
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// impersonated lists brands that phishing mail most often names. An email
// naming one that the workspace does not own is held for review.
var impersonated = []string{
	"paypal", "apple", "icloud", "microsoft", "office 365", "outlook", "google", "gmail",
	"amazon", "netflix", "facebook", "instagram", "whatsapp", "linkedin", "dhl", "fedex",
	"ups", "usps", "docusign", "dropbox", "adobe", "chase", "wells fargo", "bank of america",
	"citibank", "hsbc", "coinbase", "binance", "irs", "hmrc", "spotify", "ebay", "walmart",
	"steam", "yahoo", "norton", "mcafee", "stripe", "venmo", "zelle",
}

// brandsByFirstWord indexes the brands by their first word, so one pass
// over the text's words finds every brand it names.
var brandsByFirstWord = func() map[string][][]string {
	out := map[string][][]string{}
	for _, b := range impersonated {
		words := strings.Fields(b)
		out[words[0]] = append(out[words[0]], words)
	}
	return out
}()

// ForeignBrands returns the impersonation-prone brands that subject or the
// visible text of body name and that are not among own (the workspace's
// name, brands and domains), in the order of the impersonated list. Text
// is read as it shows: invisible characters dropped, white space runs one
// space, and a brand split by markup ("Pay<b></b>Pal") still named.
func ForeignBrands(subject, body string, own []string) []string {
	spaced, joined := visibleText(body)
	named := namedBrands(readable(subject) + "\n" + readable(spaced) + "\n" + readable(joined))
	var found []string
	for _, b := range impersonated {
		if named[b] && !ownsBrand(own, b) {
			found = append(found, b)
		}
	}
	return found
}

// namedBrands scans text once, word by word (a word is a run of ASCII
// letters, digits and underscores, as regexp's \b sees it), and returns
// the brands it names; a brand of several words matches only with single
// spaces between them. Linear in the text, whatever the list's length.
func namedBrands(text string) map[string]bool {
	named := map[string]bool{}
	words := asciiWords(text)
	for i, w := range words {
		for _, brand := range brandsByFirstWord[strings.ToLower(text[w[0]:w[1]])] {
			if wordsFollow(text, words[i:], brand) {
				named[strings.Join(brand, " ")] = true
			}
		}
	}
	return named
}

// wordsFollow reports whether words (offsets into text) start with want,
// separated by exactly one space each.
func wordsFollow(text string, words [][2]int, want []string) bool {
	if len(words) < len(want) {
		return false
	}
	for j, w := range want {
		if !strings.EqualFold(text[words[j][0]:words[j][1]], w) {
			return false
		}
		if j > 0 && text[words[j-1][1]:words[j][0]] != " " {
			return false
		}
	}
	return true
}

// asciiWords returns the start and end of every word of text.
func asciiWords(text string) [][2]int {
	var words [][2]int
	start := -1
	for i := 0; i <= len(text); i++ {
		if i < len(text) && isWordByte(text[i]) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			words = append(words, [2]int{start, i})
			start = -1
		}
	}
	return words
}

func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func ownsBrand(own []string, brand string) bool {
	squash := func(s string) string { return strings.ReplaceAll(strings.ToLower(s), " ", "") }
	b := squash(brand)
	for _, o := range own {
		o = squash(o)
		if o == "" {
			continue
		}
		if o == b || strings.HasPrefix(o, b+".") || strings.Contains(o, b) {
			return true
		}
	}
	return false
}

// visibleText returns the text of body outside script and style twice:
// with a word break at every tag, and with none, as an inline element or a
// comment joins the text around it. A brand named in either is shown.
func visibleText(body string) (spaced, joined string) {
	var s, j strings.Builder
	z := html.NewTokenizer(strings.NewReader(body))
	skip := 0
	for {
		switch z.Next() {
		case html.ErrorToken:
			return s.String(), j.String()
		case html.StartTagToken:
			if name, _ := z.TagName(); string(name) == "script" || string(name) == "style" {
				skip++
			}
		case html.EndTagToken:
			if name, _ := z.TagName(); (string(name) == "script" || string(name) == "style") && skip > 0 {
				skip--
			}
		case html.TextToken:
			if skip == 0 {
				text := z.Text()
				s.Write(text)
				s.WriteByte(' ')
				j.Write(text)
			}
		}
	}
}

// readable is text as a reader sees it: format characters (soft hyphen,
// zero-width space and joiners, which render as nothing) dropped, and every
// run of white space (an HTML line break, a non-breaking space) one space.
func readable(text string) string {
	var b strings.Builder
	b.Grow(len(text))
	space := false
	for _, r := range text {
		switch {
		case unicode.Is(unicode.Cf, r):
		case unicode.IsSpace(r):
			space = true
		default:
			if space {
				b.WriteByte(' ')
				space = false
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Verdict is the outcome of the automated review.
type Verdict struct {
	Cleared bool     `json:"cleared"`
	Reasons []string `json:"reasons,omitempty"`
}

var shorteners = []string{"bit.ly", "tinyurl.com", "t.co", "goo.gl", "ow.ly", "is.gd", "buff.ly", "rebrand.ly", "cutt.ly"}

// Check is the quick automated review of one email: its brands, its
// markup and its links.
func Check(subject, body string, own []string) Verdict {
	layout, links := scan(body)
	reasons := append(append(BrandCheck(subject, body, own).Reasons, layout...), links...)
	return Verdict{Cleared: len(reasons) == 0, Reasons: reasons}
}

// BrandCheck clears an email unless it names a brand the workspace does
// not own. It is per email: the same layout may name different brands.
func BrandCheck(subject, body string, own []string) Verdict {
	if brands := ForeignBrands(subject, body, own); len(brands) > 0 {
		return Verdict{Reasons: []string{"names a brand the workspace does not own: " + strings.Join(brands, ", ")}}
	}
	return Verdict{Cleared: true}
}

// CheckLayout is the review of a template: it is cleared unless its markup
// asks for credentials in a form, or carries script or javascript: URLs.
// Only what the fingerprint captures decides a template; link targets and
// text differ from email to email.
func CheckLayout(body string) Verdict {
	layout, _ := scan(body)
	return Verdict{Cleared: len(layout) == 0, Reasons: layout}
}

// CheckLinks is the per-email review of links: cleared unless a link's
// visible text shows another domain than its target, or it goes to a bare
// IP address or through a URL shortener.
func CheckLinks(body string) Verdict {
	_, links := scan(body)
	return Verdict{Cleared: len(links) == 0, Reasons: links}
}

// scan walks body once and returns the layout and link problems it finds.
func scan(body string) (layout, links []string) {
	add := func(list *[]string, r string) {
		if !slices.Contains(*list, r) {
			*list = append(*list, r)
		}
	}
	z := html.NewTokenizer(strings.NewReader(body))
	var href string
	var linkText strings.Builder
	inLink := false
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return layout, links
		}
		tok := z.Token()
		switch tt {
		case html.StartTagToken, html.SelfClosingTagToken:
			switch tok.Data {
			case "form":
				add(&layout, "contains a form")
			case "script":
				add(&layout, "contains script")
			case "input":
				if attr(tok, "type") == "password" {
					add(&layout, "asks for a password")
				}
			case "a":
				href, inLink = attr(tok, "href"), true
				linkText.Reset()
				if reason := linkProblem(href); reason != "" {
					add(&links, reason)
				}
			}
			for _, a := range tok.Attr {
				if strings.HasPrefix(strings.ToLower(strings.TrimSpace(a.Val)), "javascript:") {
					add(&layout, "contains a javascript: URL")
				}
			}
		case html.TextToken:
			if inLink {
				linkText.WriteString(tok.Data)
			}
		case html.EndTagToken:
			if tok.Data == "a" && inLink {
				if deceptive(linkText.String(), href) {
					add(&links, "a link shows one address and goes to another")
				}
				inLink = false
			}
		}
	}
}

func attr(t html.Token, name string) string {
	for _, a := range t.Attr {
		if a.Key == name {
			return a.Val
		}
	}
	return ""
}

func linkProblem(href string) string {
	u, err := url.Parse(strings.TrimSpace(href))
	if err != nil || u.Host == "" {
		return ""
	}
	host := strings.ToLower(u.Hostname())
	if _, err := netip.ParseAddr(host); err == nil {
		return "links to a bare IP address"
	}
	if slices.Contains(shorteners, host) {
		return "uses a URL shortener"
	}
	return ""
}

// domainLike is compiled on first use: only the review and the send path's
// link check need it, not every binary's init.
var domainLike = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^(https?://)?([a-z0-9-]+\.)+[a-z]{2,}(/\S*)?$`)
})

// deceptive reports whether a link's visible text is itself an address on
// another host than the link goes to.
func deceptive(text, href string) bool {
	text = strings.TrimSpace(text)
	if !domainLike().MatchString(text) {
		return false
	}
	if !strings.Contains(text, "://") {
		text = "https://" + text
	}
	shown, err1 := url.Parse(text)
	target, err2 := url.Parse(strings.TrimSpace(href))
	if err1 != nil || err2 != nil || target.Host == "" {
		return false
	}
	a := strings.TrimPrefix(strings.ToLower(shown.Hostname()), "www.")
	b := strings.TrimPrefix(strings.ToLower(target.Hostname()), "www.")
	return a != b && !strings.HasSuffix(b, "."+a)
}
