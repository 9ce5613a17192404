package tokentext_test

import (
	"bytes"
	"testing"

	"github.com/sesame-mail/sesame/internal/tokentext"
)

// A token reads back as written; any inserted or changed byte, line
// breaks included (which Go's strict decoder skips), is refused.
func TestDecode(t *testing.T) {
	want := []byte("\x00\x01token bytes\xff\xfe")
	text := tokentext.Encode(want)
	if got, err := tokentext.Decode(text); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("Decode(Encode) = %q, %v", got, err)
	}
	for name, bad := range map[string]string{
		"CR inserted":       text[:3] + "\r" + text[3:],
		"LF inserted":       text[:3] + "\n" + text[3:],
		"CRLF at the end":   text + "\r\n",
		"padding":           text + "=",
		"standard alphabet": text[:2] + "+" + text[3:],
		"space":             " " + text,
		"one char too many": text + "A",
	} {
		if _, err := tokentext.Decode(bad); err == nil {
			t.Errorf("%s: %q read as a token", name, bad)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte("seed"), 3, byte('\n'))
	f.Fuzz(func(t *testing.T, b []byte, at int, c byte) {
		text := tokentext.Encode(b)
		if len(text) == 0 {
			return
		}
		at = (at%len(text) + len(text)) % len(text)
		changed := text[:at] + string(c) + text[at:]
		if got, err := tokentext.Decode(changed); err == nil && tokentext.Encode(got) != changed {
			t.Fatalf("%q read as %q, which is written %q", changed, got, tokentext.Encode(got))
		}
	})
}
