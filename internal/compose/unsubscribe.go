package compose

import (
	"fmt"
	"html"
	"net/url"
	"strings"
)

// Unsubscribe is what every campaign and automation email carries so its
// recipient can leave: the RFC 8058 one-click headers (with a mailto for
// clients that only mail) and a footer with the sender's postal address
// and the unsubscribe link.
type Unsubscribe struct {
	// URL is the recipient's unsubscribe link (unsubscribe.Links.URL): an
	// absolute https URL (http only for the local stack).
	URL string
	// Mailto is an address whose mail asks to unsubscribe; empty leaves
	// the mailto out. Sesame receives no mail: it must be a mailbox the
	// workspace reads (the campaign's reply-to or sender), and requests
	// there are honoured by hand. Letters, digits and .+-_ only.
	Mailto string
	// PostalAddress is the workspace's postal address (CAN-SPAM), one
	// line; it is shown as text, escaped.
	PostalAddress string
}

// The unsubscribe headers (RFC 2369, RFC 8058).
const (
	HeaderListUnsubscribe     = "List-Unsubscribe"
	HeaderListUnsubscribePost = "List-Unsubscribe-Post"
	oneClickValue             = "List-Unsubscribe=One-Click"
)

// unsubscribeTag marks the footer's link for SES click tracking: its click
// event carries the tag sesame_link=unsubscribe, which the status pipeline
// counts as an opt-out, never as engagement (status.IsUnsubscribe).
const unsubscribeTag = `ses:tags="sesame_link:unsubscribe;"`

// WithUnsubscribe returns m with the List-Unsubscribe and
// List-Unsubscribe-Post headers and the footer added to its HTML, before
// </body> when there is one; the text part, derived from the HTML, shows
// the address and the link too.
func WithUnsubscribe(m Message, u Unsubscribe) (Message, error) {
	link, err := url.Parse(u.URL)
	if err != nil || (link.Scheme != "https" && link.Scheme != "http") || link.Host == "" ||
		strings.ContainsAny(u.URL, " <>,\"'\r\n\t\x00") {
		return m, fmt.Errorf("%w: unsubscribe URL %q is not an absolute http(s) URL", ErrInvalid, u.URL)
	}
	if strings.TrimSpace(u.PostalAddress) == "" || strings.ContainsAny(u.PostalAddress, "\r\n\x00") {
		return m, fmt.Errorf("%w: a postal address on one line is required in the footer", ErrInvalid)
	}
	targets := "<" + u.URL + ">"
	if u.Mailto != "" {
		if !plainMailbox(u.Mailto) {
			return m, fmt.Errorf("%w: unsubscribe mailto %q is not a plain address", ErrInvalid, u.Mailto)
		}
		targets += ", <mailto:" + u.Mailto + "?subject=unsubscribe>"
	}
	headers := make(map[string]string, len(m.Headers)+2)
	for k, v := range m.Headers {
		if strings.EqualFold(k, HeaderListUnsubscribe) || strings.EqualFold(k, HeaderListUnsubscribePost) {
			return m, fmt.Errorf("%w: header %q is set by the unsubscribe footer", ErrInvalid, k)
		}
		headers[k] = v
	}
	headers[HeaderListUnsubscribe] = targets
	headers[HeaderListUnsubscribePost] = oneClickValue
	m.Headers = headers
	m.HTML = withFooter(m.HTML, footer(u))
	return m, nil
}

// footer is the HTML footer: the postal address, then the tagged link.
func footer(u Unsubscribe) string {
	return `<div style="margin-top:24px;font-size:12px;line-height:1.5;color:#666666">` +
		`<p style="margin:0">` + html.EscapeString(u.PostalAddress) + `</p>` +
		`<p style="margin:0"><a href="` + html.EscapeString(u.URL) + `" ` + unsubscribeTag + `>Unsubscribe</a></p>` +
		`</div>`
}

// withFooter puts f before the last </body>, or at the end.
func withFooter(doc, f string) string {
	if i := lastBodyClose(doc); i >= 0 {
		return doc[:i] + f + doc[i:]
	}
	return doc + f
}

// lastBodyClose is the offset in doc of the last </body in any case, or -1.
// It compares doc's own bytes: lower-casing doc first would change its
// length (İ, the Kelvin sign) and shift the offset into the content.
func lastBodyClose(doc string) int {
	const tag = "</body"
	for i := len(doc) - len(tag); i >= 0; i-- {
		if doc[i] == '<' && strings.EqualFold(doc[i:i+len(tag)], tag) {
			return i
		}
	}
	return -1
}

// plainMailbox reports whether s is local@domain of letters, digits and
// .+-_ only: nothing a mailto URI would have to escape.
func plainMailbox(s string) bool {
	local, domain, ok := strings.Cut(s, "@")
	if !ok || local == "" || domain == "" || !strings.Contains(domain, ".") {
		return false
	}
	for _, r := range local + domain {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '+', r == '-', r == '_':
		default:
			return false
		}
	}
	return true
}
