package schema

import (
	"testing"
	"unicode/utf8"
)

func TestCutText(t *testing.T) {
	tests := map[string]struct {
		in   string
		n    int
		want string
	}{
		"short":               {"abc", 5, "abc"},
		"exact":               {"abc", 3, "abc"},
		"ascii":               {"abcdef", 4, "abcd"},
		"inside a character":  {"aé", 2, "a"}, // é is 2 bytes
		"after a character":   {"aéb", 3, "aé"},
		"inside a 4-byte one": {"x😀", 3, "x"},
		"zero":                {"abc", 0, ""},
		"negative budget":     {"abc", -1, ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := CutText(tc.in, tc.n); got != tc.want {
				t.Errorf("CutText(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
			}
		})
	}
}

func FuzzCutText(f *testing.F) {
	f.Add("aé😀b", 3)
	f.Fuzz(func(t *testing.T, s string, n int) {
		got := CutText(s, n)
		if len(s) > max(n, 0) && len(got) > max(n, 0) || len(got) > len(s) || s[:len(got)] != got {
			t.Fatalf("CutText(%q, %d) = %q: not a prefix within the budget", s, n, got)
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("CutText(%q, %d) = %q splits a character", s, n, got)
		}
	})
}
