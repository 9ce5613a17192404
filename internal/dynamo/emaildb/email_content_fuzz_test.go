package emaildb

import (
	"bytes"
	"testing"
)

// Whatever bytes a content item or its reference hold, inflating them
// ends within its bound and never panics; what a dictionary deflated
// inflates back with that dictionary.
func FuzzInflateContent(f *testing.F) {
	f.Add([]byte("<p>Hi Ann, order 42</p>"), []byte("<p>Hi Bo, order 7</p>"), []byte{0x4b, 0x04, 0x00})
	f.Add([]byte{}, []byte{}, []byte{})
	f.Fuzz(func(t *testing.T, packed, dict, z []byte) {
		if c, err := inflateContent(z, dict); err == nil && len(c.HTML) > maxContentRead {
			t.Fatalf("inflated to %d bytes of html", len(c.HTML))
		}
		if len(dict) == 0 {
			dict = nil
		}
		d, err := deflateContent(packed, dict, refSum(dict))
		if err != nil {
			t.Fatal(err)
		}
		back, err := inflate(d, dict, maxContentRead)
		if err != nil || !bytes.Equal(back, packed) {
			t.Fatalf("deflated with a dictionary, read back %q (%v), want %q", back, err, packed)
		}
	})
}
