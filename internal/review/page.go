package review

import (
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// page is what one pass over an email's HTML finds: its visible text
// (when asked for) and its layout and link problems.
type page struct {
	// text is the text outside script and style as it shows, joined where
	// a tag (an inline element, a comment) sits between two characters;
	// text.glued lists those places, where a reader may also see a word
	// break. A brand named either way is shown.
	text          shownText
	layout, links []string
	// linkFindings are the link problems one by one, each with its link.
	linkFindings []Finding
}

// IsShortener reports whether host (lower case) is a public URL
// shortener the review holds links to.
func IsShortener(host string) bool { return slices.Contains(shorteners, host) }

var shorteners = []string{"bit.ly", "tinyurl.com", "t.co", "goo.gl", "ow.ly", "is.gd", "buff.ly", "rebrand.ly", "cutt.ly"}

// readPage reads body once, with the html tokenizer's raw accessors (no
// token copies); withText also gathers the visible text.
func readPage(body string, withText bool) *page {
	p := &page{}
	if withText {
		p.text.grow(len(body))
	}
	z := html.NewTokenizer(strings.NewReader(body))
	var href string
	var linkText []byte
	inLink := false
	skip := 0 // open script and style elements
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return p
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			tag := string(name) // no allocation when compared
			if tt == html.StartTagToken && (tag == "script" || tag == "style") {
				skip++
			}
			var inputType string
			isLink := tag == "a"
			linkHref := ""
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				if javascriptURL(v) {
					p.addLayout(ReasonJavascriptURL)
				}
				switch {
				case isLink && string(k) == "href":
					linkHref = string(v)
				case tag == "input" && string(k) == "type":
					inputType = string(v)
				}
			}
			switch tag {
			case "form":
				p.addLayout(ReasonForm)
			case "script":
				p.addLayout(ReasonScript)
			case "input":
				if inputType == "password" {
					p.addLayout(ReasonPassword)
				}
			case "a":
				href, inLink = linkHref, true
				linkText = linkText[:0]
				if reason := linkProblem(href); reason != "" {
					p.addLink(reason, href)
				}
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			switch string(name) {
			case "script", "style":
				skip = max(0, skip-1)
			case "a":
				if inLink && deceptive(string(linkText), href) {
					p.addLink(ReasonDeceptiveLink, href)
				}
				inLink = false
			}
		case html.TextToken:
			if !withText && !inLink {
				continue
			}
			text := z.Text()
			if inLink {
				linkText = append(linkText, text...)
			}
			if withText && skip == 0 {
				p.text.write(text)
			}
		}
		if withText && tt != html.TextToken {
			p.text.tag()
		}
	}
}

func (p *page) addLayout(r string) {
	if !slices.Contains(p.layout, r) {
		p.layout = append(p.layout, r)
	}
}

func (p *page) addLink(r, href string) {
	p.linkFindings = append(p.linkFindings, Finding{Reason: r, Link: strings.TrimSpace(href)})
	if !slices.Contains(p.links, r) {
		p.links = append(p.links, r)
	}
}

// javascriptURL reports whether an attribute value is a javascript: URL.
func javascriptURL(v []byte) bool {
	const scheme = "javascript:"
	s := strings.TrimSpace(string(v)) // no allocation: only compared
	return len(s) >= len(scheme) && strings.EqualFold(s[:len(scheme)], scheme)
}

func linkProblem(href string) string {
	u, err := url.Parse(strings.TrimSpace(href))
	if err != nil || u.Host == "" {
		return ""
	}
	host := strings.ToLower(u.Hostname())
	if _, err := netip.ParseAddr(host); err == nil {
		return ReasonIPLink
	}
	if slices.Contains(shorteners, host) {
		return ReasonShortener
	}
	return ""
}

// deceptive reports whether a link's visible text is itself an address on
// another host than the link goes to.
func deceptive(text, href string) bool {
	text = strings.TrimSpace(text)
	if !domainLike(text) {
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

// domainLike reports whether text reads as an address: an optional http://
// or https://, labels of letters, digits and hyphens each ending in a dot,
// a top-level domain of at least two letters, then nothing or a path
// without white space. One pass, no regular expression: the same as
// (?i)^(https?://)?([a-z0-9-]+\.)+[a-z]{2,}(/\S*)?$ (FuzzDomainLike).
func domainLike(text string) bool {
	if rest, ok := cutPrefixFold(text, "https://"); ok {
		text = rest
	} else if rest, ok := cutPrefixFold(text, "http://"); ok {
		text = rest
	}
	host, path, hasPath := strings.Cut(text, "/")
	if hasPath && strings.ContainsFunc(path, isRegexpSpace) {
		return false
	}
	// host: one or more labels ending in a dot, then the top-level domain.
	dot := strings.LastIndexByte(host, '.')
	if dot < 0 {
		return false
	}
	tld := host[dot+1:]
	if utf8.RuneCountInString(tld) < 2 || strings.ContainsFunc(tld, func(r rune) bool { return !isLetterFold(r) }) {
		return false
	}
	for label := range strings.SplitSeq(host[:dot], ".") {
		if label == "" || strings.ContainsFunc(label, func(r rune) bool { return !isLetterFold(r) && !('0' <= r && r <= '9') && r != '-' }) {
			return false
		}
	}
	return true
}

// cutPrefixFold is strings.CutPrefix, ignoring case as (?i) does.
func cutPrefixFold(s, prefix string) (string, bool) {
	for _, want := range prefix {
		r, n := utf8.DecodeRuneInString(s)
		if n == 0 || r != want && !foldsTo(r, want) {
			return "", false
		}
		s = s[n:]
	}
	return s, true
}

// foldsTo reports whether r and want are one letter under case folding.
func foldsTo(r, want rune) bool {
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f == want {
			return true
		}
	}
	return false
}

// isLetterFold is (?i)[a-z]: the ASCII letters and the two other runes
// that fold to one (ſ to s, the Kelvin sign to k).
func isLetterFold(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || r == '\u017f' || r == '\u212a'
}

// isRegexpSpace is regexp's \s: [\t\n\f\r ].
func isRegexpSpace(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\f' || r == '\r' }
