package mergetag

import (
	"strings"
	"testing"
	"unicode"
)

// Whatever the text and the values: parsing never panics; a subject
// whose text has no control character renders none, whatever the
// values; html whose text has no '<' renders none.
func FuzzRender(f *testing.F) {
	f.Add(`Hi {{ contact.first_name | "there" }}`, "Ann\r\nBcc: x@example.com")
	f.Add(`{{ event.x }} {{ contact.properties.plan }}`, "<script>")
	f.Add("{{ contact.last_name | \"\" }}{{", "\x00")
	f.Fuzz(func(t *testing.T, text, value string) {
		parsed, err := Parse(text, Contact|Event)
		if err != nil {
			return
		}
		v := Vars{Event: map[string]string{}, FirstName: value, LastName: value, Email: value, Properties: map[string]string{}}
		for _, p := range parsed.parts {
			if p.isVar {
				key := p.v.path[strings.LastIndex(p.v.path, ".")+1:]
				v.Event[key], v.Properties[key] = value, value
			}
		}
		if !strings.ContainsFunc(text, unicode.IsControl) {
			if s := parsed.Subject(v); strings.ContainsFunc(s, unicode.IsControl) {
				t.Errorf("subject %q has a control character", s)
			}
		}
		if !strings.Contains(text, "<") {
			if h := parsed.HTML(v); strings.Contains(h, "<") {
				t.Errorf("html %q has markup from a value", h)
			}
		}
	})
}
