package review

import (
	"html"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzCheck: the review of any subject and body never panics, its verdict
// agrees with its reasons and with ForeignBrands, an owned brand is never
// foreign, and a brand a reader sees cannot be hidden from it: not by an
// empty element or an invisible character inside it, nor by white space
// that HTML (or a reader's eye) collapses.
func FuzzCheck(f *testing.F) {
	f.Add("Your PayPal receipt", `<p>Thanks</p><a href="https://acme.example/r/1">acme.example/r/1</a>`, "Acme", uint16(3))
	f.Fuzz(func(t *testing.T, subject, body, own string, at uint16) {
		owns := strings.Split(own, ",")
		v := Check(subject, body, owns)
		if v.Cleared != (len(v.Reasons) == 0) {
			t.Fatalf("verdict %+v", v)
		}
		foreign := ForeignBrands(subject, body, owns)
		namesBrand := slices.ContainsFunc(v.Reasons, func(r string) bool { return strings.HasPrefix(r, "names a brand") })
		if namesBrand != (len(foreign) > 0) {
			t.Fatalf("reasons %v, foreign brands %v", v.Reasons, foreign)
		}
		for _, b := range foreign {
			if slices.Contains(ForeignBrands(subject, body, append(owns, b)), b) {
				t.Fatalf("%s is foreign though owned", b)
			}
		}

		// The subject as a reader sees it: brands it names must be found
		// in it, and in a body showing it, however it is disguised.
		seen := namedBrands([]byte(strings.Join(strings.Fields(strings.Map(invisible, subject)), " ")))
		if seen == 0 || !utf8.ValidString(subject) {
			return
		}
		p := int(at) % (len(subject) + 1)
		for p > 0 && p < len(subject) && !utf8.RuneStart(subject[p]) {
			p--
		}
		disguised := map[string][2]string{ // subject, body
			"as is":               {subject, ""},
			"in a paragraph":      {"", "<p>" + html.EscapeString(subject) + "</p>"},
			"split by an element": {"", "<p>" + html.EscapeString(subject[:p]) + "<span></span>" + html.EscapeString(subject[p:]) + "</p>"},
			"split by a comment":  {"", "<p>" + html.EscapeString(subject[:p]) + "<!-- -->" + html.EscapeString(subject[p:]) + "</p>"},
			"with a soft hyphen":  {"", "<p>" + html.EscapeString(subject[:p]) + "&shy;" + html.EscapeString(subject[p:]) + "</p>"},
			"zero-width space":    {subject[:p] + "\u200b" + subject[p:], ""},
			"spaces doubled":      {strings.ReplaceAll(subject, " ", "  "), ""},
			"newlines in HTML":    {"", "<p>" + html.EscapeString(strings.ReplaceAll(subject, " ", "\n ")) + "</p>"},
			"non-breaking spaces": {"", "<p>" + strings.ReplaceAll(html.EscapeString(subject), " ", "&nbsp;") + "</p>"},
		}
		for how, in := range disguised {
			got := ForeignBrands(in[0], in[1], nil)
			for i, b := range impersonated {
				if seen.has(i) && !slices.Contains(got, b) {
					t.Errorf("%s: %q names %s, which the check misses (%v)", how, in, b, got)
				}
			}
		}
	})
}

// invisible drops what a reader does not see (format characters).
func invisible(r rune) rune {
	if r == '\u00ad' || r == '\u200b' || r == '\u200c' || r == '\u200d' || r == '\u2060' || r == '\ufeff' {
		return -1
	}
	return r
}
