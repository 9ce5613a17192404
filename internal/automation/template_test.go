package automation

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestRender(t *testing.T) {
	vars := Vars{
		Event:     map[string]string{"product_name": "Blue <b>mug</b>", "total": "19.99"},
		FirstName: "Ada", Email: "ada@example.com",
		Properties: map[string]string{"plan": "pro"},
	}
	tests := map[string]struct{ in, html, text string }{
		"event value escaped":      {`Your {{ event.product_name }}`, `Your Blue &lt;b&gt;mug&lt;/b&gt;`, `Your Blue <b>mug</b>`},
		"fallback unused":          {`{{event.total|"0"}} EUR`, `19.99 EUR`, `19.99 EUR`},
		"fallback used":            {`{{ event.coupon | "no coupon" }}`, `no coupon`, `no coupon`},
		"fallback escaped":         {`{{ event.coupon | "<i>none</i>" }}`, `&lt;i&gt;none&lt;/i&gt;`, `<i>none</i>`},
		"contact fields":           {`Hi {{ contact.first_name }} {{ contact.last_name | "" }} <{{ contact.email }}>`, `Hi Ada  <ada@example.com>`, `Hi Ada  <ada@example.com>`},
		"property":                 {`{{ contact.properties.plan }}`, `pro`, `pro`},
		"missing without fallback": {`[{{ event.nothing }}]`, `[]`, `[]`},
		"script in a value":        {`{{ event.x }}`, `&lt;script&gt;alert(1)&lt;/script&gt;`, `<script>alert(1)</script>`},
		"no variables":             {`plain`, `plain`, `plain`},
	}
	for name, tt := range tests {
		v := vars
		if name == "script in a value" {
			v.Event = map[string]string{"x": "<script>alert(1)</script>"}
		}
		got, err := RenderHTML(tt.in, v)
		if err != nil || got != tt.html {
			t.Errorf("%s: RenderHTML = %q, %v; want %q", name, got, err, tt.html)
		}
		got, err = RenderText(tt.in, v)
		if err != nil || got != tt.text {
			t.Errorf("%s: RenderText = %q, %v; want %q", name, got, err, tt.text)
		}
	}
}

func TestCheckContent(t *testing.T) {
	ok := []string{
		`Hello`, `{{ contact.email }}`, `{{ event.product_name | "your items" }}`,
		`{{ contact.first_name | "there" }}`, `{{contact.properties.plan|""}}`,
	}
	for _, s := range ok {
		if err := CheckContent(s); err != nil {
			t.Errorf("CheckContent(%q) = %v", s, err)
		}
	}
	bad := []string{
		`{{ event.product_name }}`, `{{ contact.first_name }}`, `{{ contact.properties.plan }}`,
		`{{ order.id | "x" }}`, `{{ event. | "x" }}`, `{{ event.a.b | "x" }}`, `{{ event.x | fallback }}`,
		`{{ event.x | "a"b" }}`, `unclosed {{ event.x`, `{{ contact.phone | "x" }}`,
	}
	for _, s := range bad {
		if err := CheckContent(s); err == nil {
			t.Errorf("CheckContent(%q) accepted", s)
		}
	}
}

// An unclosed variable is quoted in the refusal clipped to 40 bytes, on a
// character boundary: the message stays valid UTF-8 whatever the text.
func TestCheckContentClipsOnACharacter(t *testing.T) {
	for name, tail := range map[string]string{
		"ascii":                  strings.Repeat("x", 60),
		"2-byte at the cut":      strings.Repeat("x", 36) + strings.Repeat("é", 10),
		"4-byte across the cut":  strings.Repeat("x", 35) + strings.Repeat("😀", 4),
		"short, nothing clipped": "éé",
	} {
		err := CheckContent("Hi {{ " + tail)
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
