package segment_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/segment"
)

// FuzzParse: any bytes as a filter. Parse never panics; a refusal is
// invalid_field with a param at or below filter; a filter it takes
// marshals to a canonical form that parses back to itself, and matches
// the same contacts.
func FuzzParse(f *testing.F) {
	f.Add(`{"all":[{"field":"email","op":"ends_with","value":"@acme.test"}]}`)
	f.Fuzz(func(t *testing.T, in string) {
		filter, err := segment.Parse(json.RawMessage(in))
		if err != nil {
			e, ok := fail.As(err)
			if !ok || e.Kind != fail.KindInvalid || !strings.HasPrefix(e.Param, segment.Param) || e.Message == "" {
				t.Fatalf("Parse(%q) = %v: not an invalid_field below filter", in, err)
			}
			return
		}
		canonical, err := json.Marshal(filter)
		if err != nil {
			t.Fatalf("Marshal of Parse(%q): %v", in, err)
		}
		again, err := segment.Parse(canonical)
		if err != nil {
			t.Fatalf("canonical %s of %q does not parse: %v", canonical, in, err)
		}
		if back, _ := json.Marshal(again); string(back) != string(canonical) {
			t.Fatalf("canonical form of %q not stable: %s then %s", in, canonical, back)
		}
		for _, c := range []struct {
			name string
			ok   bool
		}{{"ann", filter.Match(ann, now) == again.Match(ann, now)}, {"bob", filter.Match(bob, now) == again.Match(bob, now)}} {
			if !c.ok {
				t.Fatalf("%s matches %q and its canonical form differently", c.name, in)
			}
		}
	})
}
