package compose_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/compose"
)

const unsubURL = "https://abc123.execute-api.eu-west-1.amazonaws.com/prod/unsubscribe/ARABoguvYHF3_KGfEExANtvpAaILr2B3eKS0QWUNlTQUyAGiC69genj4vHfcvxEy_TKxKmSQiJt0FcEuS_OWXbuu"

func unsub() compose.Unsubscribe {
	return compose.Unsubscribe{URL: unsubURL, Mailto: "hello@mail.example.test", PostalAddress: `Acme <b>"Ltd"</b> & Co, 1 Main St`}
}

// The raw message carries the RFC 8058 headers and, in both parts, the
// postal address (escaped in the HTML) and the link, tagged for SES so its
// click counts as an opt-out.
func TestWithUnsubscribe(t *testing.T) {
	m := baseMessage()
	m.HTML = "<html><body><p>News</p></BODY></html>"
	m.Headers = map[string]string{"X-Campaign": "spring"}
	withU, err := compose.WithUnsubscribe(m, unsub())
	if err != nil {
		t.Fatal(err)
	}
	raw := build(t, withU)
	msg, parts := parse(t, raw)

	wantList := "<" + unsubURL + ">, <mailto:hello@mail.example.test?subject=unsubscribe>"
	if got := msg.Header.Get("List-Unsubscribe"); got != wantList {
		t.Errorf("List-Unsubscribe = %q, want %q", got, wantList)
	}
	if got := msg.Header.Get("List-Unsubscribe-Post"); got != "List-Unsubscribe=One-Click" {
		t.Errorf("List-Unsubscribe-Post = %q", got)
	}
	if got := msg.Header.Get("X-Campaign"); got != "spring" {
		t.Errorf("the message's own header was lost: X-Campaign = %q", got)
	}
	head, _, _ := strings.Cut(string(raw), "\r\n\r\n")
	for line := range strings.SplitSeq(head, "\r\n") {
		if len(line) > 998 {
			t.Errorf("header line of %d octets", len(line))
		}
	}

	var htmlPart, textPart string
	for _, p := range parts {
		switch p.mediaType {
		case "text/html":
			htmlPart = string(p.body)
		case "text/plain":
			textPart = string(p.body)
		}
	}
	wantFooter := `<p style="margin:0">Acme &lt;b&gt;&#34;Ltd&#34;&lt;/b&gt; &amp; Co, 1 Main St</p>` +
		`<p style="margin:0"><a href="` + unsubURL + `" ses:tags="sesame_link:unsubscribe;">Unsubscribe</a></p></div></BODY></html>`
	if !strings.Contains(htmlPart, wantFooter) {
		t.Errorf("HTML part lacks the footer before </body>:\n%s", htmlPart)
	}
	if strings.Contains(htmlPart, "<b>") {
		t.Errorf("the postal address's markup reached the HTML unescaped:\n%s", htmlPart)
	}
	if !strings.Contains(htmlPart, "<p>News</p>") {
		t.Errorf("the body was lost:\n%s", htmlPart)
	}
	for _, want := range []string{`Acme <b>"Ltd"</b> & Co, 1 Main St`, unsubURL, "Unsubscribe", "News"} {
		if !strings.Contains(strings.ReplaceAll(textPart, "\r\n", "\n"), want) {
			t.Errorf("text part lacks %q:\n%s", want, textPart)
		}
	}
	if m.Headers["List-Unsubscribe"] != "" || strings.Contains(m.HTML, "Unsubscribe") {
		t.Error("WithUnsubscribe changed the message it was given")
	}
}

// Without a mailto the header has the one-click link alone; a document
// without </body> gets the footer at its end.
func TestWithUnsubscribeNoMailto(t *testing.T) {
	u := unsub()
	u.Mailto = ""
	m, err := compose.WithUnsubscribe(baseMessage(), u)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Headers["List-Unsubscribe"]; got != "<"+unsubURL+">" {
		t.Errorf("List-Unsubscribe = %q", got)
	}
	if !strings.HasPrefix(m.HTML, baseMessage().HTML) || !strings.HasSuffix(m.HTML, "</div>") {
		t.Errorf("HTML = %s", m.HTML)
	}
}

// Letters whose lower case is shorter in bytes (İ, the Kelvin sign) before
// </body> do not shift the footer into the content: it lands right before
// the last </body>, whatever its case.
func TestWithUnsubscribeFooterAfterMultibyteText(t *testing.T) {
	for name, content := range map[string]string{
		"dotted capital I": "<p>İstanbul'da İzmir'de İndirim</p>",
		"Kelvin sign":      "<p>300 \u212a \u212a \u212a</p>",
	} {
		t.Run(name, func(t *testing.T) {
			m := baseMessage()
			m.HTML = "<html><body>" + content + "</Body></html>"
			got, err := compose.WithUnsubscribe(m, unsub())
			if err != nil {
				t.Fatal(err)
			}
			before, after, ok := strings.Cut(got.HTML, "<div")
			if !ok || before != "<html><body>"+content || !strings.HasSuffix(after, "</div></Body></html>") {
				t.Errorf("footer misplaced:\n%s", got.HTML)
			}
		})
	}
}

func TestWithUnsubscribeRefuses(t *testing.T) {
	cases := map[string]func(*compose.Message, *compose.Unsubscribe){
		"relative URL":        func(_ *compose.Message, u *compose.Unsubscribe) { u.URL = "/unsubscribe/x" },
		"javascript URL":      func(_ *compose.Message, u *compose.Unsubscribe) { u.URL = "javascript:alert(1)" },
		"URL with a bracket":  func(_ *compose.Message, u *compose.Unsubscribe) { u.URL = "https://a.test/x>, <https://evil.test" },
		"URL with a line":     func(_ *compose.Message, u *compose.Unsubscribe) { u.URL = "https://a.test/x\r\nBcc: a@b.test" },
		"no postal address":   func(_ *compose.Message, u *compose.Unsubscribe) { u.PostalAddress = " " },
		"postal on two lines": func(_ *compose.Message, u *compose.Unsubscribe) { u.PostalAddress = "Acme\r\nBcc: a@b.test" },
		"mailto with a name":  func(_ *compose.Message, u *compose.Unsubscribe) { u.Mailto = "Ann <ann@a.test>" },
		"mailto with a query": func(_ *compose.Message, u *compose.Unsubscribe) { u.Mailto = "ann@a.test?cc=x@y.test" },
		"mailto without @":    func(_ *compose.Message, u *compose.Unsubscribe) { u.Mailto = "ann" },
		"header already given": func(m *compose.Message, _ *compose.Unsubscribe) {
			m.Headers = map[string]string{"list-unsubscribe": "<x>"}
		},
	}
	for name, change := range cases {
		t.Run(name, func(t *testing.T) {
			m, u := baseMessage(), unsub()
			change(&m, &u)
			if _, err := compose.WithUnsubscribe(m, u); !errors.Is(err, compose.ErrInvalid) {
				t.Errorf("err = %v, want ErrInvalid", err)
			}
		})
	}
}
