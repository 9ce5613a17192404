package automation

import (
	"fmt"
	"html"
	"strings"
	"unicode/utf8"
)

// Vars are the values a run's content reads: the event's frozen payload
// and the contact as it is when the step runs.
type Vars struct {
	Event      map[string]string
	FirstName  string
	LastName   string
	Email      string
	Properties map[string]string
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
	}
	return ""
}

// alwaysSet reports whether every contact has the variable: only its
// address. Any other value may be missing for some run.
func (x variable) alwaysSet() bool { return x.path == "contact.email" }

// part is a literal text, or a variable when isVar.
type part struct {
	text  string
	v     variable
	isVar bool
}

// parse splits a text into literals and variables. A "{{" with no "}}",
// or a variable the language does not know, is an error naming it.
func parse(s string) ([]part, error) {
	var parts []part
	for {
		i := strings.Index(s, "{{")
		if i < 0 {
			if s != "" {
				parts = append(parts, part{text: s})
			}
			return parts, nil
		}
		if i > 0 {
			parts = append(parts, part{text: s[:i]})
		}
		j := strings.Index(s[i:], "}}")
		if j < 0 {
			return nil, fmt.Errorf("%q opens a variable with {{ and never closes it with }}", clip(s[i:]))
		}
		v, err := parseVariable(s[i+2 : i+j])
		if err != nil {
			return nil, err
		}
		parts = append(parts, part{v: v, isVar: true})
		s = s[i+j+2:]
	}
}

func parseVariable(inner string) (variable, error) {
	path, fallback, hasFallback := strings.Cut(inner, "|")
	v := variable{path: strings.TrimSpace(path), hasFallback: hasFallback}
	if hasFallback {
		f := strings.TrimSpace(fallback)
		if len(f) < 2 || f[0] != '"' || f[len(f)-1] != '"' || strings.Contains(f[1:len(f)-1], `"`) {
			return variable{}, fmt.Errorf("{{%s}}: a fallback is text in double quotes: {{ %s | \"fallback\" }}", inner, v.path)
		}
		v.fallback = f[1 : len(f)-1]
	}
	if !knownPath(v.path) {
		return variable{}, fmt.Errorf("{{%s}}: unknown variable %q; use event.<key>, contact.first_name, contact.last_name, contact.email or contact.properties.<key>", inner, v.path)
	}
	return v, nil
}

func knownPath(p string) bool {
	switch p {
	case "contact.first_name", "contact.last_name", "contact.email":
		return true
	}
	for _, prefix := range []string{"event.", "contact.properties."} {
		if key, ok := strings.CutPrefix(p, prefix); ok {
			return isKey(key)
		}
	}
	return false
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

// CheckContent reports why a text would not render for every run: a
// variable it cannot read, or one that some run may lack and that has
// no fallback. What activation refuses.
func CheckContent(s string) error {
	parts, err := parse(s)
	if err != nil {
		return err
	}
	for _, p := range parts {
		if p.isVar && !p.v.hasFallback && !p.v.alwaysSet() {
			return fmt.Errorf("{{ %s }} has no fallback, and a run may lack it: write {{ %s | \"…\" }}", p.v.path, p.v.path)
		}
	}
	return nil
}

// RenderHTML renders an HTML text: each value inserted as text, escaped,
// never as markup. A variable missing with no fallback renders empty.
func RenderHTML(s string, v Vars) (string, error) { return render(s, v, html.EscapeString) }

// RenderText renders a plain text (a subject): values inserted as they are.
func RenderText(s string, v Vars) (string, error) {
	return render(s, v, func(s string) string { return s })
}

func render(s string, v Vars, escape func(string) string) (string, error) {
	parts, err := parse(s)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, p := range parts {
		if !p.isVar {
			b.WriteString(p.text)
			continue
		}
		val := p.v.lookup(v)
		if val == "" {
			val = p.v.fallback
		}
		b.WriteString(escape(val))
	}
	return b.String(), nil
}
