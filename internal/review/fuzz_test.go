package review

import (
	"html"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	htmltok "golang.org/x/net/html"
)

// FuzzCheck: the review of any subject and body never panics, its verdict
// agrees with its reasons, with Findings and with foreignBrands, an owned brand is never
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
		if got := reasonsOf(Findings(subject, body, owns)); !slices.Equal(got, v.Reasons) {
			t.Fatalf("Findings give the reasons %q, Check %q", got, v.Reasons)
		}
		foreign := readPage(body, true).foreignBrands(subject, owns)
		namesBrand := slices.ContainsFunc(v.Reasons, func(r string) bool { return strings.HasPrefix(r, "names a brand") })
		if namesBrand != (len(foreign) > 0) {
			t.Fatalf("reasons %v, foreign brands %v", v.Reasons, foreign)
		}
		for _, b := range foreign {
			if slices.Contains(readPage(body, true).foreignBrands(subject, append(owns, b)), b) {
				t.Fatalf("%s is foreign though owned", b)
			}
		}

		// The subject as a reader sees it: brands it claims must be found
		// in it, and in a body showing it, however it is disguised.
		seen := claimedBrands([]byte(strings.Join(strings.Fields(strings.Map(invisible, subject)), " ")), nil)
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
			got := readPage(in[1], true).foreignBrands(in[0], nil)
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

func TestBrandReach(t *testing.T) {
	longest, longestWord := 0, 0
	for _, b := range impersonated {
		longest = max(longest, len(b))
		for _, w := range strings.Fields(b) {
			longestWord = max(longestWord, len(w))
		}
	}
	if longest != brandReach || longestWord >= longWord {
		t.Errorf("longest brand %d (brandReach %d), longest word %d (longWord %d)", longest, brandReach, longestWord, longWord)
	}
}

// FuzzSplitBrands holds the one-pass text (joined at tags, rescanned
// around the tags that join two words) to the two full texts it
// replaces: one with a word break at every tag, one with none.
func FuzzSplitBrands(f *testing.F) {
	for _, seed := range []string{"<p>Hello</p><p>PayPal</p>", "Bank of<b></b>America", "Wells<br>Fargo x", "Micro<b>soft</b>",
		"aaaaaaaaaaaaaaaaaaaaaaaa<i></i>paypal", "paypal<i></i>bbbbbbbbbbbbbbbbbbbbbbbbbb", "Bank <i>of</i>America<i></i>x",
		"<p>office</p><p>365</p>", "x<b></b>y<b></b>z<b></b>ups<b></b>1", "Pay&shy;<b></b>Pal",
		"your<b></b>Apple<i></i>ID", "<p>Steam</p><p>Deck</p>", "UPS<b>:</b> x", "Apple-<b></b>-ID"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		p := readPage(body, true)
		got := namedBrands(p.text.b) | splitBrands(p.text.b, p.text.glued)
		spaced, joined := referenceTexts(body)
		want := namedBrands([]byte(spaced)) | namedBrands([]byte(joined))
		if got != want {
			t.Errorf("%q: brands %b, the two full texts name %b (text %q, glued %v)", body, got, want, p.text.b, p.text.glued)
		}
		got = claimedBrands(p.text.b, p.text.glued)
		if want := claimedBrands([]byte(spaced), nil) | claimedBrands([]byte(joined), nil); got != want {
			t.Errorf("%q: claimed brands %b, the two full texts claim %b (text %q, glued %v)", body, got, want, p.text.b, p.text.glued)
		}
	})
}

// referenceTexts are body's visible text with a word break at every tag
// and with none, each as a reader sees it: the review's texts before they
// became one.
func referenceTexts(body string) (spaced, joined string) {
	var s, j strings.Builder
	z := htmltok.NewTokenizer(strings.NewReader(body))
	skip := 0
	for {
		switch z.Next() {
		case htmltok.ErrorToken:
			return referenceShown(s.String()), referenceShown(j.String())
		case htmltok.StartTagToken:
			if name, _ := z.TagName(); string(name) == "script" || string(name) == "style" {
				skip++
			}
			s.WriteByte(' ')
		case htmltok.EndTagToken:
			if name, _ := z.TagName(); (string(name) == "script" || string(name) == "style") && skip > 0 {
				skip--
			}
			s.WriteByte(' ')
		case htmltok.TextToken:
			if skip == 0 {
				text := z.Text()
				s.Write(text)
				j.Write(text)
			}
		default:
			s.WriteByte(' ')
		}
	}
}

// referenceShown drops format characters and makes each run of white
// space one space.
func referenceShown(text string) string {
	var b strings.Builder
	space := false
	for _, r := range text {
		switch {
		case unicode.Is(unicode.Cf, r):
		case unicode.IsSpace(r):
			space = true
		default:
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(r)
		}
	}
	return b.String()
}
