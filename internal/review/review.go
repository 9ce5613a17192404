// Package review is the quick security review of API email: the template
// fingerprint that decides when an email is new enough to hold, the check
// for brands the workspace does not own, and the automated verdict that
// clears a held template or not.
package review

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"

	"golang.org/x/net/html"
)

// Fingerprint identifies an email's template: SHA-256 over the sequence of
// its HTML element names and attribute names. Text, attribute values and
// the subject are left out, so the same layout sent to different people
// with different names, links and amounts is one template, while a new
// layout is a new one.
func Fingerprint(body string) string {
	h := sha256.New()
	// What is hashed is gathered and written in pieces of a few KB: one
	// small write per tag would cost more than the tokenizer.
	buf := make([]byte, 0, 4096)
	var attrs [][]byte // into the tokenizer's buffer, valid until Next
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
		buf = append(append(buf, byte(tt)), name...)
		attrs = attrs[:0]
		for hasAttr {
			var k []byte
			k, _, hasAttr = z.TagAttr()
			attrs = append(attrs, k)
		}
		slices.SortFunc(attrs, bytes.Compare) // attribute order does not change a layout
		for _, a := range attrs {
			buf = append(append(buf, ' '), a...)
		}
		buf = append(buf, '\n')
		if len(buf) >= 4096-256 {
			h.Write(buf)
			buf = buf[:0]
		}
	}
	h.Write(buf)
	return hex.EncodeToString(h.Sum(nil))
}

// Verdict is the outcome of the automated review.
type Verdict struct {
	Cleared bool     `json:"cleared"`
	Reasons []string `json:"reasons,omitempty"`
}

// Check is the quick automated review of one email: its brands, its
// markup and its links, from one pass over its HTML.
func Check(subject, body string, own []string) Verdict {
	p := readPage(body, true)
	var reasons []string
	if r := p.brandReason(subject, own); r != "" {
		reasons = append(reasons, r)
	}
	reasons = append(append(reasons, p.layout...), p.links...)
	return Verdict{Cleared: len(reasons) == 0, Reasons: reasons}
}

// CheckLayout is the review of a template: it is cleared unless its markup
// asks for credentials in a form, or carries script or javascript: URLs.
// Only what the fingerprint captures decides a template; link targets and
// text differ from email to email.
func CheckLayout(body string) Verdict {
	layout := readPage(body, false).layout
	return Verdict{Cleared: len(layout) == 0, Reasons: layout}
}

// CheckMarkup is the review of an email's markup and links without its
// brands, from one read of its HTML: CheckLayout's reasons, then those of
// its links (a link's visible text showing another domain than its
// target, a bare IP address, a URL shortener).
func CheckMarkup(body string) Verdict {
	p := readPage(body, false)
	reasons := append(p.layout, p.links...)
	return Verdict{Cleared: len(reasons) == 0, Reasons: reasons}
}
