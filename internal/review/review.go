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

// The reasons the review gives, as Verdict.Reasons and Finding.Reason
// say them (a brand reason is followed by ": " and the brands).
const (
	ReasonForeignBrand  = "names a brand the workspace does not own"
	ReasonScript        = "contains script"
	ReasonForm          = "contains a form"
	ReasonPassword      = "asks for a password"
	ReasonJavascriptURL = "contains a javascript: URL"
	ReasonDeceptiveLink = "a link shows one address and goes to another"
	ReasonIPLink        = "links to a bare IP address"
	ReasonShortener     = "uses a URL shortener"
)

// Finding is one problem the review finds: its reason (one of the Reason
// constants), the link it is about for a link problem, and the brands for
// ReasonForeignBrand.
type Finding struct {
	Reason string
	Link   string
	Brands []string
}

// Findings is Check's review finding by finding, from the same one read
// of the HTML: the foreign brands, each layout problem once, then every
// link problem with its link, so that a caller can tell which link each
// is about (the deliverability check leaves out Sesame's own links). The
// reasons of Check are exactly the distinct reasons of Findings.
func Findings(subject, body string, own []string) []Finding {
	p := readPage(body, true)
	var out []Finding
	if brands := p.foreignBrands(subject, own); len(brands) > 0 {
		out = append(out, Finding{Reason: ReasonForeignBrand, Brands: brands})
	}
	for _, r := range p.layout {
		out = append(out, Finding{Reason: r})
	}
	return append(out, p.linkFindings...)
}
