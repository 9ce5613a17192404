package automation

import (
	"strings"
	"testing"
)

func TestCheckEventName(t *testing.T) {
	tests := map[string]string{ // name → part of the refusal, "" for valid
		"cart_abandoned":         "",
		"order.placed-v2":        "",
		"a":                      "",
		"Cart Abandoned":         "no spaces",
		"CART_ABANDONED":         `send "cart_abandoned"`,
		"":                       "not empty",
		"_cart":                  "starting with a letter",
		"cart/abandoned":         "lowercase letters, digits",
		"café":                   "lowercase letters, digits",
		strings.Repeat("a", 101): "at most 100",
		strings.Repeat("a", 100): "",
	}
	for name, want := range tests {
		err := CheckEventName(name)
		switch {
		case want == "" && err != nil:
			t.Errorf("%q refused: %v", name, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%q: got %v, want an error saying %q", name, err, want)
		}
	}
}
