// Package mergetag is Sesame's one template language, for automations,
// campaigns and stored templates alike: {{ path }} or
// {{ path | "fallback" }} in a subject or an html, where path is
// contact.first_name, contact.last_name, contact.email,
// contact.properties.<key>, in an automation event.<key>, and in a stored
// template data.<key> (the variables of the send). Values are
// text, never markup: escaped in html, and a subject's never carry a
// control character into the header.
package mergetag

import (
	"fmt"
	"html"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sesame-mail/sesame/internal/contact"
)

// Vars are the values a text reads: an automation's frozen event payload
// and the contact as it is when the email is built.
type Vars struct {
	Event      map[string]string
	Data       map[string]string // a send's variables
	FirstName  string
	LastName   string
	Email      string
	Properties map[string]string
}

// ContactVars are the values contact c gives a text; a number or boolean
// property reads as its JSON text.
func ContactVars(c contact.Contact) Vars {
	v := Vars{Email: c.Email, Properties: make(map[string]string, len(c.Properties))}
	if c.FirstName != nil {
		v.FirstName = *c.FirstName
	}
	if c.LastName != nil {
		v.LastName = *c.LastName
	}
	for k, p := range c.Properties {
		switch p.Kind {
		case contact.KindString:
			v.Properties[k] = p.String
		case contact.KindNumber:
			v.Properties[k] = strconv.FormatFloat(p.Number, 'f', -1, 64)
		case contact.KindBool:
			v.Properties[k] = strconv.FormatBool(p.Bool)
		}
	}
	return v
}

// Scope is which variables a text may read.
type Scope uint8

const (
	// Contact: contact.first_name, .last_name, .email, .properties.<key>.
	Contact Scope = 1 << iota
	// Event: event.<key>, an automation's event payload.
	Event
	// Data: data.<key>, the variables a send of a stored template gives.
	Data
)

// Error is a text the language refuses, at the byte Offset of the {{
// that is wrong (Line and Column, from 1, count characters).
type Error struct {
	Offset int
	Line   int
	Column int
	Reason string
}

func (e *Error) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Reason)
}

// errorAt is the Error of reason at byte offset off of s.
func errorAt(s string, off int, format string, args ...any) *Error {
	before := s[:off]
	line := strings.Count(before, "\n") + 1
	col := utf8.RuneCountInString(before[strings.LastIndexByte(before, '\n')+1:]) + 1
	return &Error{Offset: off, Line: line, Column: col, Reason: fmt.Sprintf(format, args...)}
}

// variable is one {{ path | "fallback" }} of a text.
type variable struct {
	path        string
	fallback    string
	hasFallback bool
}

// lookup is the variable's value in v, "" when v lacks it.
func (x variable) lookup(v Vars) string {
	switch {
	case x.path == "contact.first_name":
		return v.FirstName
	case x.path == "contact.last_name":
		return v.LastName
	case x.path == "contact.email":
		return v.Email
	case strings.HasPrefix(x.path, "contact.properties."):
		return v.Properties[strings.TrimPrefix(x.path, "contact.properties.")]
	case strings.HasPrefix(x.path, "event."):
		return v.Event[strings.TrimPrefix(x.path, "event.")]
	case strings.HasPrefix(x.path, "data."):
		return v.Data[strings.TrimPrefix(x.path, "data.")]
	}
	return ""
}

// alwaysSet reports whether every contact has the variable: only its
// address. Any other value may be missing for some recipient.
func (x variable) alwaysSet() bool { return x.path == "contact.email" }

// part is a literal text, or a variable when isVar.
type part struct {
	text  string
	v     variable
	isVar bool
}

// Text is a parsed text: literals and variables.
type Text struct{ parts []part }

// Parse splits s into literals and variables of scope. A "{{" with no
// "}}", a malformed fallback or a variable outside scope is an *Error
// naming where.
func Parse(s string, scope Scope) (Text, error) {
	var t Text
	for off := 0; ; {
		i := strings.Index(s[off:], "{{")
		if i < 0 {
			if off < len(s) {
				t.parts = append(t.parts, part{text: s[off:]})
			}
			return t, nil
		}
		i += off
		if i > off {
			t.parts = append(t.parts, part{text: s[off:i]})
		}
		j := strings.Index(s[i:], "}}")
		if j < 0 {
			return Text{}, errorAt(s, i, "%q opens a variable with {{ and never closes it with }}", clip(s[i:]))
		}
		v, reason := parseVariable(s[i+2:i+j], scope)
		if reason != "" {
			return Text{}, errorAt(s, i, "%s", reason)
		}
		t.parts = append(t.parts, part{v: v, isVar: true})
		off = i + j + 2
	}
}

// parseVariable reads the inside of {{ }}; reason says what is wrong.
func parseVariable(inner string, scope Scope) (v variable, reason string) {
	path, fallback, hasFallback := strings.Cut(inner, "|")
	v = variable{path: strings.TrimSpace(path), hasFallback: hasFallback}
	if hasFallback {
		f := strings.TrimSpace(fallback)
		if len(f) < 2 || f[0] != '"' || f[len(f)-1] != '"' || strings.Contains(f[1:len(f)-1], `"`) {
			return variable{}, fmt.Sprintf("{{%s}}: a fallback is text in double quotes: {{ %s | \"fallback\" }}", clip(inner), clip(v.path))
		}
		v.fallback = f[1 : len(f)-1]
	}
	if !known(v.path, scope) {
		return variable{}, fmt.Sprintf("unknown variable %q; use %s", clip(v.path), scope.names())
	}
	return v, ""
}

// known reports whether p is a variable of scope.
func known(p string, scope Scope) bool {
	if scope&Contact != 0 {
		switch p {
		case "contact.first_name", "contact.last_name", "contact.email":
			return true
		}
		if key, ok := strings.CutPrefix(p, "contact.properties."); ok {
			return isKey(key)
		}
	}
	if key, ok := strings.CutPrefix(p, "event."); ok && scope&Event != 0 {
		return isKey(key)
	}
	if key, ok := strings.CutPrefix(p, "data."); ok && scope&Data != 0 {
		return isKey(key)
	}
	return false
}

// names lists the variables of scope, for a refusal.
func (s Scope) names() string {
	var n []string
	if s&Data != 0 {
		n = append(n, "data.<key>")
	}
	if s&Event != 0 {
		n = append(n, "event.<key>")
	}
	if s&Contact != 0 {
		n = append(n, "contact.first_name", "contact.last_name", "contact.email", "contact.properties.<key>")
	}
	if len(n) == 1 {
		return n[0]
	}
	return strings.Join(n[:len(n)-1], ", ") + " or " + n[len(n)-1]
}

// isKey: a payload or property key is letters, digits, _ and -.
func isKey(s string) bool {
	if s == "" || len(s) > 100 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

// clip shortens s for an error message to at most clipBytes bytes, cut
// on a character boundary so the message stays valid UTF-8.
func clip(s string) string {
	if len(s) <= clipBytes {
		return s
	}
	cut := clipBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

const clipBytes = 40

// Bare lists the variables of t that some recipient may lack and that
// have no fallback (what an automation's activation refuses).
func (t Text) Bare() []string {
	var out []string
	for _, p := range t.parts {
		if p.isVar && !p.v.hasFallback && !p.v.alwaysSet() {
			out = append(out, p.v.path)
		}
	}
	return out
}

// HTML renders t as html: each value inserted as text, escaped, never as
// markup. A value missing with no fallback renders empty.
func (t Text) HTML(v Vars) string { return t.render(v, html.EscapeString) }

// Subject renders t as a header's text: values as they are, except that
// each control character (CR, LF, NUL, tab…) becomes a space, so no
// value can break or end the header.
func (t Text) Subject(v Vars) string { return t.render(v, HeaderSafe) }

// HeaderSafe is s with each control character replaced by a space.
func HeaderSafe(s string) string {
	if !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
}

func (t Text) render(v Vars, value func(string) string) string {
	var b strings.Builder
	for _, p := range t.parts {
		if !p.isVar {
			b.WriteString(p.text)
			continue
		}
		val := p.v.lookup(v)
		if val == "" {
			val = p.v.fallback
		}
		b.WriteString(value(val))
	}
	return b.String()
}

// RenderHTML parses s with every variable in scope and renders it as html.
func RenderHTML(s string, v Vars) (string, error) {
	t, err := Parse(s, Contact|Event)
	return t.HTML(v), err
}

// RenderSubject parses s with every variable in scope and renders it as
// a subject.
func RenderSubject(s string, v Vars) (string, error) {
	t, err := Parse(s, Contact|Event)
	return t.Subject(v), err
}

// Missing lists the data variables of t that have no fallback and no
// value in data: a send of a stored template must give them.
func (t Text) Missing(data map[string]string) []string {
	var out []string
	for _, p := range t.parts {
		if key, ok := strings.CutPrefix(p.v.path, "data."); ok && p.isVar && !p.v.hasFallback && data[key] == "" {
			out = append(out, key)
		}
	}
	return out
}

// Contacts reports whether t reads any contact variable.
func (t Text) Contacts() bool {
	for _, p := range t.parts {
		if p.isVar && strings.HasPrefix(p.v.path, "contact.") {
			return true
		}
	}
	return false
}

// DataKeys lists the keys of the data variables t reads, in order, with
// repeats.
func (t Text) DataKeys() []string {
	var out []string
	for _, p := range t.parts {
		if key, ok := strings.CutPrefix(p.v.path, "data."); ok && p.isVar {
			out = append(out, key)
		}
	}
	return out
}

// IsKey reports whether s may name a variable's key: 1 to 100 letters,
// digits, _ and -.
func IsKey(s string) bool { return isKey(s) }
