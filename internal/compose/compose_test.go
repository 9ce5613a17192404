package compose_test

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/mail"
	"strings"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/compose"
	"github.com/sesame-mail/sesame/internal/compose/raw"
)

const emailID = "0190f1c2-7b3a-7cde-8f00-123456789abc"

func baseMessage() compose.Message {
	return compose.Message{
		From:    mail.Address{Name: "Sesame Tëam", Address: "hello@mail.example.test"},
		To:      "bob@example.test",
		Subject: "Hello",
		HTML:    "<p>Hello <b>Bob</b></p>",
		EmailID: emailID,
	}
}

// part is a decoded MIME leaf: transfer encoding undone.
type part struct {
	mediaType string
	params    map[string]string
	header    map[string][]string
	body      []byte
}

func parse(t *testing.T, raw []byte) (*mail.Message, []part) {
	t.Helper()
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("ReadMessage: %v\n%s", err, raw)
	}
	return msg, leaves(t, msg.Header.Get("Content-Type"), msg.Header.Get("Content-Transfer-Encoding"), msg.Header, msg.Body)
}

func leaves(t *testing.T, contentType, cte string, h map[string][]string, body io.Reader) []part {
	t.Helper()
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		t.Fatalf("content type %q: %v", contentType, err)
	}
	if strings.HasPrefix(mt, "multipart/") {
		r := multipart.NewReader(body, params["boundary"])
		out := []part{{mediaType: mt, params: params, header: h}} // the container itself, then its leaves
		for {
			p, err := r.NextPart() // undoes quoted-printable, not base64
			if err == io.EOF {
				return out
			}
			if err != nil {
				t.Fatal(err)
			}
			cte := p.Header.Get("Content-Transfer-Encoding")
			out = append(out, leaves(t, p.Header.Get("Content-Type"), cte, p.Header, p)...)
		}
	}
	data, err := io.ReadAll(body)
	if err != nil {
		t.Fatal(err)
	}
	if strings.EqualFold(cte, "base64") {
		data, err = base64.StdEncoding.DecodeString(strings.NewReplacer("\r", "", "\n", "").Replace(string(data)))
		if err != nil {
			t.Fatalf("base64: %v", err)
		}
	}
	return []part{{mediaType: mt, params: params, header: h, body: data}}
}

func build(t *testing.T, m compose.Message) []byte {
	t.Helper()
	raw, err := raw.Build(m)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return raw
}

func TestBuildHeaders(t *testing.T) {
	m := baseMessage()
	m.Subject = "Grüße 👋"
	m.ReplyTo = []string{"support@example.test", "Ops Désk <ops@example.test>"}
	m.Headers = map[string]string{
		"List-Unsubscribe":      "<https://unsub.example.test/u/abc>, <mailto:unsub@example.test?subject=abc>",
		"List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
	}
	before := time.Now().Add(-time.Second)
	msg, _ := parse(t, build(t, m))

	dec := new(mime.WordDecoder)
	subject, err := dec.DecodeHeader(msg.Header.Get("Subject"))
	if err != nil || subject != "Grüße 👋" {
		t.Errorf("Subject = %q (%v), raw %q", subject, err, msg.Header.Get("Subject"))
	}
	if strings.ContainsFunc(msg.Header.Get("Subject"), func(r rune) bool { return r > 0x7f }) {
		t.Errorf("Subject header is not RFC 2047 encoded: %q", msg.Header.Get("Subject"))
	}
	from, err := msg.Header.AddressList("From")
	if err != nil || len(from) != 1 || from[0].Name != "Sesame Tëam" || from[0].Address != "hello@mail.example.test" {
		t.Errorf("From = %v (%v)", from, err)
	}
	to, err := msg.Header.AddressList("To")
	if err != nil || len(to) != 1 || to[0].Address != "bob@example.test" {
		t.Errorf("To = %v (%v)", to, err)
	}
	rt, err := msg.Header.AddressList("Reply-To")
	if err != nil || len(rt) != 2 || rt[0].Address != "support@example.test" ||
		rt[1].Address != "ops@example.test" || rt[1].Name != "Ops Désk" {
		t.Errorf("Reply-To = %v (%v)", rt, err)
	}
	if got, want := msg.Header.Get("Message-Id"), "<"+emailID+"@mail.example.test>"; got != want {
		t.Errorf("Message-ID = %q, want %q", got, want)
	}
	if got := msg.Header.Get("Mime-Version"); got != "1.0" {
		t.Errorf("MIME-Version = %q", got)
	}
	date, err := msg.Header.Date()
	if err != nil || date.Before(before) || date.After(time.Now().Add(time.Second)) {
		t.Errorf("Date = %v (%v)", date, err)
	}
	for k, v := range m.Headers {
		if got := msg.Header.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	for _, k := range []string{"Bcc", "Cc", "User-Agent", "X-Mailer"} {
		if _, ok := msg.Header[k]; ok {
			t.Errorf("unexpected header %s: %q", k, msg.Header.Get(k))
		}
	}
}

func TestBuildAlternativeParts(t *testing.T) {
	m := baseMessage()
	m.HTML = `<html><head><title>T</title><style>p{color:red}</style></head><body>` +
		`<h1>Grüße &amp; welcome</h1><p>Line&nbsp;one</p><p>See <a href="https://example.test/x?a=1&amp;b=2">the docs</a>.</p>` +
		`<script>alert(1)</script></body></html>`
	msg, parts := parse(t, build(t, m))
	if mt, _, _ := mime.ParseMediaType(msg.Header.Get("Content-Type")); mt != "multipart/alternative" {
		t.Fatalf("top-level type %q, want multipart/alternative (no attachments)", mt)
	}
	if len(parts) != 3 {
		t.Fatalf("got %d parts, want container + 2", len(parts))
	}
	text, html := parts[1], parts[2]
	if text.mediaType != "text/plain" || html.mediaType != "text/html" {
		t.Fatalf("part order %s, %s; want text/plain then text/html (preferred last)", text.mediaType, html.mediaType)
	}
	for _, p := range []part{text, html} {
		if !strings.EqualFold(p.params["charset"], "utf-8") {
			t.Errorf("%s charset %q", p.mediaType, p.params["charset"])
		}
	}
	if got := strings.ReplaceAll(string(html.body), "\r\n", "\n"); got != m.HTML {
		t.Errorf("html part = %q, want %q", got, m.HTML)
	}
	wantText := "Grüße & welcome\n\nLine one\n\nSee the docs (https://example.test/x?a=1&b=2)."
	if got := strings.ReplaceAll(string(text.body), "\r\n", "\n"); got != wantText {
		t.Errorf("text part = %q, want %q", got, wantText)
	}
}

func TestBuildAttachments(t *testing.T) {
	m := baseMessage()
	pdf := []byte("%PDF-1.4\x00\x01\x02\xff binary \r\n bytes")
	csv := []byte("a,b\n1,2\n")
	m.Attachments = []compose.Attachment{
		{Filename: "report.pdf", ContentType: "application/pdf", Data: pdf},
		{Filename: "Überblick.csv", ContentType: "text/csv", Data: csv},
		{Filename: "notes.txt", Data: []byte("guessed type")},
	}
	msg, parts := parse(t, build(t, m))
	if mt, _, _ := mime.ParseMediaType(msg.Header.Get("Content-Type")); mt != "multipart/mixed" {
		t.Fatalf("top-level type %q, want multipart/mixed", mt)
	}
	var kinds []string
	for _, p := range parts {
		kinds = append(kinds, p.mediaType)
	}
	want := "multipart/mixed multipart/alternative text/plain text/html application/pdf text/csv text/plain"
	if got := strings.Join(kinds, " "); got != want {
		t.Fatalf("parts %q, want %q", got, want)
	}
	for i, p := range parts[4:] {
		a := m.Attachments[i]
		// RFC 2231 parameters, which mime.ParseMediaType decodes; never an
		// encoded-word in a quoted string (RFC 2047 §5).
		disp, dparams, err := mime.ParseMediaType(p.header["Content-Disposition"][0])
		if err != nil || disp != "attachment" {
			t.Errorf("%s: disposition %q (%v)", a.Filename, disp, err)
		}
		if name := dparams["filename"]; name != a.Filename || strings.Contains(p.header["Content-Disposition"][0], "=?") {
			t.Errorf("filename = %q in %q, want %q as an RFC 2231 parameter", name, p.header["Content-Disposition"][0], a.Filename)
		}
		if p.params["name"] != a.Filename {
			t.Errorf("Content-Type name = %q, want %q", p.params["name"], a.Filename)
		}
		if !bytes.Equal(p.body, a.Data) {
			t.Errorf("%s: bytes differ: %q vs %q", a.Filename, p.body, a.Data)
		}
	}
}

func TestBuildLargeAttachment(t *testing.T) {
	data := make([]byte, 2<<20)
	if _, err := rand.Read(data); err != nil {
		t.Fatal(err)
	}
	m := baseMessage()
	m.Attachments = []compose.Attachment{{Filename: "big.bin", ContentType: "application/octet-stream", Data: data}}
	raw := build(t, m)
	// base64 is 4/3 plus CRLF every 76 characters: about 1.37.
	if ratio := float64(len(raw)) / float64(len(data)); ratio < 1.33 || ratio > 1.40 {
		t.Errorf("message is %d bytes for %d of attachment: ratio %.3f", len(raw), len(data), ratio)
	}
	_, parts := parse(t, raw)
	if got := parts[len(parts)-1].body; !bytes.Equal(got, data) {
		t.Errorf("attachment round trip: %d bytes, want %d identical", len(got), len(data))
	}
}

// SES refuses lines over 1,000 characters; go-mail's encodings must keep
// every line short even when the HTML is one long line.
func TestBuildLineLength(t *testing.T) {
	m := baseMessage()
	m.HTML = "<p>" + strings.Repeat("word ", 2000) + strings.Repeat("x", 3000) + "</p>"
	m.Subject = strings.Repeat("Long subject ", 40)
	m.Headers = map[string]string{"List-Unsubscribe": "<https://unsub.example.test/" + strings.Repeat("a", 300) + ">"}
	for i, line := range strings.Split(string(build(t, m)), "\r\n") {
		if len(line) > 998 {
			t.Fatalf("line %d is %d characters", i, len(line))
		}
	}
}

// Every subject the API takes (up to 998 characters, any of them
// non-ASCII, words of any length) reads back exactly, and no line of the
// header passes 78 octets: RFC 5322 allows 998, SES refuses past 1,000.
func TestBuildSubject(t *testing.T) {
	cases := map[string]string{
		"998 non-ASCII characters": strings.Repeat("é", 998),
		"998 emoji":                strings.Repeat("👋", 998),
		"998 letters, no space":    strings.Repeat("s", 998),
		"long words and spaces":    strings.Repeat("Long subject ", 76) + "end",
		"a word of 77 letters":     "Hi " + strings.Repeat("w", 77) + " there",
		"a word of 78 letters":     "Hi " + strings.Repeat("w", 78) + " there",
		"spaces kept":              "  two  spaces, and trailing ",
		"encoded-word syntax":      "=?UTF-8?B?UGF5UGFs?=",
		"Q specials":               "a_b=c?d ü",
		"mixed":                    "Grüße " + strings.Repeat("x", 200) + " 👋",
		"plain":                    "Your order #1234 has shipped",
	}
	dec := new(mime.WordDecoder)
	for name, subject := range cases {
		t.Run(name, func(t *testing.T) {
			m := baseMessage()
			m.Subject = subject
			raw := build(t, m)
			header, _, _ := bytes.Cut(raw, []byte("\r\n\r\n"))
			for i, line := range strings.Split(string(header), "\r\n") {
				if len(line) > 78 {
					t.Errorf("header line %d is %d octets: %q", i, len(line), line)
				}
			}
			msg, _ := parse(t, raw)
			got, err := dec.DecodeHeader(msg.Header.Get("Subject"))
			if err != nil || got != subject {
				t.Errorf("Subject reads back as %q (%v), want %q", got, err, subject)
			}
		})
	}
}

func TestBuildRejects(t *testing.T) {
	cases := map[string]func(*compose.Message){
		"subject CRLF":          func(m *compose.Message) { m.Subject = "Hi\r\nBcc: x@evil.test" },
		"subject LF":            func(m *compose.Message) { m.Subject = "Hi\nBcc: x@evil.test" },
		"subject CR":            func(m *compose.Message) { m.Subject = "Hi\rBcc: x@evil.test" },
		"subject NUL":           func(m *compose.Message) { m.Subject = "Hi\x00there" },
		"from name":             func(m *compose.Message) { m.From.Name = "A\r\nBcc: x@evil.test" },
		"from address":          func(m *compose.Message) { m.From.Address = "a@b.test\r\nBcc: x@evil.test" },
		"from without domain":   func(m *compose.Message) { m.From.Address = "nobody" },
		"to":                    func(m *compose.Message) { m.To = "bob@example.test\r\nBcc: x@evil.test" },
		"to empty":              func(m *compose.Message) { m.To = "" },
		"to invalid":            func(m *compose.Message) { m.To = "not an address" },
		"reply-to":              func(m *compose.Message) { m.ReplyTo = []string{"a@b.test\nBcc: x@evil.test"} },
		"header value":          func(m *compose.Message) { m.Headers = map[string]string{"List-Unsubscribe": "<x>\r\nBcc: x@evil.test"} },
		"header name colon":     func(m *compose.Message) { m.Headers = map[string]string{"Bcc: x@evil.test\r\nX": "y"} },
		"header name space":     func(m *compose.Message) { m.Headers = map[string]string{"X Y": "y"} },
		"duplicate header":      func(m *compose.Message) { m.Headers = map[string]string{"x-a": "1", "X-A": "2"} },
		"reserved header":       func(m *compose.Message) { m.Headers = map[string]string{"bcc": "x@evil.test"} },
		"reserved content type": func(m *compose.Message) { m.Headers = map[string]string{"Content-Type": "text/plain"} },
		"attachment filename": func(m *compose.Message) {
			m.Attachments = []compose.Attachment{{Filename: "a\r\nBcc: x", Data: []byte("x")}}
		},
		"attachment no name": func(m *compose.Message) { m.Attachments = []compose.Attachment{{Data: []byte("x")}} },
		"attachment type CRLF": func(m *compose.Message) {
			m.Attachments = []compose.Attachment{{Filename: "a.txt", ContentType: "text/plain\r\nBcc: x", Data: []byte("x")}}
		},
		"attachment type invalid": func(m *compose.Message) {
			m.Attachments = []compose.Attachment{{Filename: "a.txt", ContentType: "not a type", Data: []byte("x")}}
		},
		"email id empty":   func(m *compose.Message) { m.EmailID = "" },
		"email id with @":  func(m *compose.Message) { m.EmailID = "a@b" },
		"email id with LF": func(m *compose.Message) { m.EmailID = "a\nb" },
	}
	for name, mutate := range cases {
		t.Run(name, func(t *testing.T) {
			m := baseMessage()
			mutate(&m)
			raw, err := raw.Build(m)
			if !errors.Is(err, compose.ErrInvalid) {
				t.Fatalf("err = %v, want ErrInvalid; message:\n%s", err, raw)
			}
		})
	}
}

func TestHTMLToText(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", ""},
		{"plain", "plain"},
		{"a &lt;b&gt; &amp; &quot;c&quot; &#39;d&#39; &eacute;", `a <b> & "c" 'd' é`},
		{"1 < 2 and 3 > 2", "1 < 2 and 3 > 2"},
		{"<p>one</p>\n\n\n\n<p>two</p>", "one\n\ntwo"},
		{"a<br>b<BR/>c", "a\nb\nc"},
		{"a<br><br><br>b", "a\n\nb"},
		{"<div>a</div>\n  <div>b</div>", "a\nb"},
		{"x<b> bold </b>y", "x bold y"},
		{"  lots   of\t\twhite &nbsp; space  ", "lots of white space"},
		{"<!-- hidden -->shown<!-- also hidden", "shown"},
		{"<SCRIPT>evil()</script>ok<style>p{}</STYLE>", "ok"},
		{"<head><title>x</title></head><body>body</body>", "body"},
		{`<a href="https://e.test/a">https://e.test/a</a>`, "https://e.test/a"},
		{`<a href='mailto:x@e.test'>x@e.test</a>`, "x@e.test"},
		{`<a href="javascript:alert(1)">click</a>`, "click"},
		{`<a href=http://<A0>x</a>`, "x"},
		{`<a href="https://e.test/&lt;b&gt;">see</a>`, "see"},
		{`<a href="https://e.test/a b">see</a>`, "see"},
		{`<p title="a > b">x</p>`, "x"},
		{`<p class=don't>it's</p>`, "it's"},
		{"<table><tr><td>a</td><td>b</td></tr><tr><td>c</td></tr></table>", "a b\nc"},
		{"<ul><li>one</li><li>two</li></ul>", "one\ntwo"},
		{"unterminated <b", "unterminated"},
	}
	for _, c := range cases {
		if got := compose.HTMLToText(c.in); got != c.want {
			t.Errorf("HTMLToText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
