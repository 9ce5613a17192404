package deliverability

import (
	"net/url"
	"strings"

	"golang.org/x/net/html"
)

// page is what one pass over the HTML finds that the review package does
// not export: images, link targets and hosts, whether a link offers to
// unsubscribe, and how much text shows. It reads with the same tokenizer
// as the review, through its raw accessors (no token copies).
type page struct {
	images int
	links  int
	// hosts are the distinct hosts of the http(s) links, lower case, in
	// the order they first appear, Sesame's own links left out.
	hosts       []string
	visible     int
	unsubscribe bool
	own         []string
}

// hidden are the elements whose text does not show in the body.
var hidden = map[string]bool{"script": true, "style": true, "title": true, "template": true}

func readPage(body string, own []string) page {
	p := page{own: own}
	seen := map[string]bool{}
	var linkText []byte
	inLink := false
	skip := 0 // open hidden elements
	z := html.NewTokenizer(strings.NewReader(body))
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			if inLink {
				p.endLink(linkText)
			}
			return p
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			tag := string(name) // no allocation when compared
			switch {
			case hidden[tag]:
				if tt == html.StartTagToken {
					skip++
				}
			case tag == "img":
				p.images++
			case tag == "a":
				if inLink { // an <a> left open ends at the next one
					p.endLink(linkText)
				}
				inLink, linkText = true, linkText[:0]
				for hasAttr {
					var k, v []byte
					k, v, hasAttr = z.TagAttr()
					if string(k) == "href" {
						p.link(strings.TrimSpace(string(v)), seen)
					}
				}
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			switch tag := string(name); {
			case hidden[tag]:
				skip = max(0, skip-1)
			case tag == "a" && inLink:
				p.endLink(linkText)
				inLink = false
			}
		case html.TextToken:
			if skip > 0 {
				continue
			}
			text := z.Text()
			p.visible += visibleChars(text)
			if inLink {
				linkText = append(linkText, text...)
			}
		}
	}
}

// link counts a link's target and notes its host.
func (p *page) link(href string, seen map[string]bool) {
	if href == "" {
		return
	}
	p.links++
	if offersUnsubscribe(href) {
		p.unsubscribe = true
	}
	u, err := url.Parse(href)
	if err != nil || (!strings.EqualFold(u.Scheme, "http") && !strings.EqualFold(u.Scheme, "https")) || ownLink(href, p.own) {
		return
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if host != "" && !seen[host] {
		seen[host] = true
		p.hosts = append(p.hosts, host)
	}
}

func (p *page) endLink(text []byte) {
	if offersUnsubscribe(string(text)) {
		p.unsubscribe = true
	}
}

// offersUnsubscribe reports whether a link's target or text says it
// unsubscribes: "unsubscribe", "opt out", "opt-out" or "optout", in any
// case.
func offersUnsubscribe(s string) bool {
	s = strings.ToLower(s)
	return strings.Contains(s, "unsubscribe") || strings.Contains(s, "opt out") ||
		strings.Contains(s, "opt-out") || strings.Contains(s, "optout")
}
