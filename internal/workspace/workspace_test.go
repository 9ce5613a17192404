package workspace_test

import (
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/workspace"
)

func TestCheckPostalAddress(t *testing.T) {
	cases := map[string]struct {
		addr string
		ok   bool
	}{
		"one line":             {"Acme Ltd, 1 Main St, Springfield, IL 62701, USA", true},
		"markup is text":       {`Acme <b>"Ltd"</b> & Co`, true},
		"empty clears":         {"", true},
		"300 characters":       {strings.Repeat("ü", 300), true},
		"301 characters":       {strings.Repeat("a", 301), false},
		"line break":           {"Acme\n1 Main St", false},
		"carriage return":      {"Acme\r1 Main St", false},
		"tab":                  {"Acme\t1 Main St", false},
		"NUL":                  {"Acme\x00", false},
		"DEL":                  {"Acme\x7f", false},
		"C1 control":           {"Acme\u0085", false},
		"paragraph separator":  {"Acme\u2029", false},
		"invalid UTF-8":        {"Acme \xff", false},
		"leading white space":  {" Acme", false},
		"trailing white space": {"Acme ", false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if err := workspace.CheckPostalAddress(tc.addr); (err == nil) != tc.ok {
				t.Errorf("CheckPostalAddress(%q) = %v, want ok %v", tc.addr, err, tc.ok)
			}
		})
	}
}
