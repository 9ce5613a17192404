package mergetag

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sesame-mail/sesame/internal/contact"
)

func TestRender(t *testing.T) {
	vars := Vars{
		Event:     map[string]string{"product_name": "Blue <b>mug</b>", "total": "19.99"},
		FirstName: "Ada", Email: "ada@example.com",
		Properties: map[string]string{"plan": "pro"},
	}
	tests := map[string]struct{ in, html, subject string }{
		"event value escaped":      {`Your {{ event.product_name }}`, `Your Blue &lt;b&gt;mug&lt;/b&gt;`, `Your Blue <b>mug</b>`},
		"fallback unused":          {`{{event.total|"0"}} EUR`, `19.99 EUR`, `19.99 EUR`},
		"fallback used":            {`{{ event.coupon | "no coupon" }}`, `no coupon`, `no coupon`},
		"fallback escaped":         {`{{ event.coupon | "<i>none</i>" }}`, `&lt;i&gt;none&lt;/i&gt;`, `<i>none</i>`},
		"contact fields":           {`Hi {{ contact.first_name }} {{ contact.last_name | "" }} <{{ contact.email }}>`, `Hi Ada  <ada@example.com>`, `Hi Ada  <ada@example.com>`},
		"property":                 {`{{ contact.properties.plan }}`, `pro`, `pro`},
		"missing without fallback": {`[{{ event.nothing }}]`, `[]`, `[]`},
		"script in a value":        {`{{ event.x }}`, `&lt;script&gt;alert(1)&lt;/script&gt;`, `<script>alert(1)</script>`},
		"line break in a value":    {`Hi {{ event.y }}!`, "Hi a\r\nBcc: x@example.com!", `Hi a  Bcc: x@example.com!`},
		"nul and tab in a value":   {`{{ event.z }}`, "a\x00b\tc\u0085d", `a b c d`},
		"no variables":             {`plain`, `plain`, `plain`},
	}
	for name, tt := range tests {
		v := vars
		v.Event = map[string]string{"product_name": "Blue <b>mug</b>", "total": "19.99",
			"x": "<script>alert(1)</script>", "y": "a\r\nBcc: x@example.com", "z": "a\x00b\tc\u0085d"}
		got, err := RenderHTML(tt.in, v)
		if err != nil || got != tt.html {
			t.Errorf("%s: RenderHTML = %q, %v; want %q", name, got, err, tt.html)
		}
		got, err = RenderSubject(tt.in, v)
		if err != nil || got != tt.subject {
			t.Errorf("%s: RenderSubject = %q, %v; want %q", name, got, err, tt.subject)
		}
	}
}

func TestContactVars(t *testing.T) {
	c := contact.Contact{Email: "ann@example.com", FirstName: new("Ann"), Properties: map[string]contact.Property{
		"plan": contact.StringProperty("pro"), "seats": contact.NumberProperty(3), "trial": contact.BoolProperty(false),
	}}
	text, err := Parse(`{{ contact.first_name }} {{ contact.last_name | "Doe" }} {{ contact.properties.plan }} {{ contact.properties.seats }} {{ contact.properties.trial }} {{ contact.properties.none | "-" }}`, Contact)
	if err != nil {
		t.Fatal(err)
	}
	if got := text.Subject(ContactVars(c)); got != "Ann Doe pro 3 false -" {
		t.Errorf("rendered %q", got)
	}
}

// Bare names the variables some recipient may lack with no fallback:
// what an automation refuses at activation.
func TestBare(t *testing.T) {
	ok := []string{
		`Hello`, `{{ contact.email }}`, `{{ event.product_name | "your items" }}`,
		`{{ contact.first_name | "there" }}`, `{{contact.properties.plan|""}}`,
	}
	for _, s := range ok {
		text, err := Parse(s, Contact|Event)
		if err != nil || len(text.Bare()) != 0 {
			t.Errorf("Parse(%q) = %v, bare %v", s, err, text.Bare())
		}
	}
	for _, s := range []string{`{{ event.product_name }}`, `{{ contact.first_name }}`, `{{ contact.properties.plan }}`} {
		text, err := Parse(s, Contact|Event)
		if err != nil || len(text.Bare()) != 1 {
			t.Errorf("Parse(%q) = %v, bare %v", s, err, text.Bare())
		}
	}
}

// A refusal names where the wrong {{ is: its byte offset, line and
// column (in characters).
func TestParseRefusesAt(t *testing.T) {
	for _, tc := range []struct {
		in                string
		scope             Scope
		offset, line, col int
		says              string
	}{
		{`{{ order.id | "x" }}`, Contact | Event, 0, 1, 1, `unknown variable "order.id"`},
		{`Hi {{ event. | "x" }}`, Contact | Event, 3, 1, 4, `unknown variable "event."`},
		{"<p>\n  é {{ event.a.b }}", Contact | Event, 9, 2, 5, `unknown variable "event.a.b"`},
		{`{{ event.x | fallback }}`, Contact | Event, 0, 1, 1, "a fallback is text in double quotes"},
		{`{{ event.x | "a"b" }}`, Contact | Event, 0, 1, 1, "a fallback is text in double quotes"},
		{"a\nb\nunclosed {{ event.x", Contact | Event, 13, 3, 10, "never closes it"},
		{`{{ contact.phone | "x" }}`, Contact | Event, 0, 1, 1, `unknown variable "contact.phone"`},
		{`{{ contact.first_name }} {{ event.total }}`, Contact, 25, 1, 26, `unknown variable "event.total"; use contact.first_name`},
		{`{{ contact.properties.a.b }}`, Contact, 0, 1, 1, "unknown variable"},
		{`{{ contact.first_name }}`, Event, 0, 1, 1, "use event.<key>"},
	} {
		_, err := Parse(tc.in, tc.scope)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("Parse(%q) = %v, want an *Error", tc.in, err)
			continue
		}
		if e.Offset != tc.offset || e.Line != tc.line || e.Column != tc.col || !strings.Contains(e.Error(), tc.says) {
			t.Errorf("Parse(%q) = offset %d, %v; want offset %d, line %d, column %d, saying %q", tc.in, e.Offset, e, tc.offset, tc.line, tc.col, tc.says)
		}
	}
}

// An unclosed variable is quoted in the refusal clipped to 40 bytes, on a
// character boundary: the message stays valid UTF-8 whatever the text.
func TestParseClipsOnACharacter(t *testing.T) {
	for name, tail := range map[string]string{
		"ascii":                  strings.Repeat("x", 60),
		"2-byte at the cut":      strings.Repeat("x", 36) + strings.Repeat("é", 10),
		"4-byte across the cut":  strings.Repeat("x", 35) + strings.Repeat("😀", 4),
		"short, nothing clipped": "éé",
	} {
		_, err := Parse("Hi {{ "+tail, Contact|Event)
		if err == nil {
			t.Fatalf("%s: unclosed variable accepted", name)
		}
		msg := err.Error()
		if !utf8.ValidString(msg) || strings.Contains(msg, `\x`) || strings.Contains(msg, "\uFFFD") {
			t.Errorf("%s: message %q is not whole characters", name, msg)
		}
		quoted := msg[strings.Index(msg, `"`)+1 : strings.LastIndex(msg, `"`)]
		if len(quoted) > clipBytes+len("…") {
			t.Errorf("%s: quoted %d bytes, want at most %d and the ellipsis", name, len(quoted), clipBytes)
		}
	}
}
