package compose

import (
	"strings"
	"testing"
	"unicode"
)

// referenceText is the writer's rule rune by rune: what text's runs of
// ASCII must write alike.
func referenceText(b *strings.Builder, pending *int, space *bool, s string) {
	for _, r := range s {
		if unicode.IsSpace(r) {
			*space = true
			continue
		}
		switch {
		case *pending > 0:
			if b.Len() > 0 {
				b.WriteString("\n\n"[:*pending])
			}
		case *space && b.Len() > 0:
			b.WriteByte(' ')
		}
		*pending, *space = 0, false
		b.WriteRune(r)
	}
}

func FuzzTextWriter(f *testing.F) {
	for _, seed := range []string{"a  b\tc", " x\u00a0y \u2003z ", "\xffé\n\nq", ""} {
		f.Add(seed, "next words", uint8(1))
	}
	f.Fuzz(func(t *testing.T, a, b string, breaks uint8) {
		var w textWriter
		var ref strings.Builder
		pending, space := 0, false
		for _, part := range []string{a, b} {
			w.text(part)
			referenceText(&ref, &pending, &space, part)
			w.pending = min(int(breaks%3), 2)
			pending = w.pending
		}
		if w.b.String() != ref.String() || w.space != space {
			t.Errorf("%q, %q: wrote %q (space %v), the rune-by-rune rule %q (space %v)", a, b, w.b.String(), w.space, ref.String(), space)
		}
	})
}
