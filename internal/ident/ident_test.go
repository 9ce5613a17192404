package ident_test

import (
	"testing"

	"github.com/sesame-mail/sesame/internal/ident"
)

func TestParse(t *testing.T) {
	const canonical = "0190c000-0000-7000-8000-0000000000aa"
	for in, ok := range map[string]bool{
		canonical:                               true,
		"0190C000-0000-7000-8000-0000000000AA":  true, // UUIDs are case-insensitive
		"{" + canonical + "}":                   false,
		"urn:uuid:" + canonical:                 false,
		"0190c00000007000800000000000000aa":     false,
		"0190c000000070008000" + "0000000000aa": false,
		"0190c000-0000-7000-8000-0000000000a":   false,
		" 0190c000-0000-7000-8000-0000000000a":  false,
		"0190c000-0000-7000-8000-0000000000ag":  false,
		"":                                      false,
	} {
		id, err := ident.Parse(in)
		if (err == nil) != ok {
			t.Errorf("Parse(%q) = %v, want ok %v", in, err, ok)
		}
		if ok && id.String() != canonical {
			t.Errorf("Parse(%q) = %s", in, id)
		}
	}
}
