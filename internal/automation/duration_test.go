package automation

import (
	"testing"
	"time"
)

func TestParseDuration(t *testing.T) {
	good := map[string]time.Duration{
		"30m": 30 * time.Minute, "1h": time.Hour, "3d": 72 * time.Hour,
		"1d12h": 36 * time.Hour, "90d": 90 * 24 * time.Hour, "1h30m": 90 * time.Minute,
	}
	for in, want := range good {
		got, err := ParseDuration(in)
		if err != nil || time.Duration(got) != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", in, time.Duration(got), err, want)
		}
		if got.String() != in {
			t.Errorf("%q written back as %q", in, got.String())
		}
	}
	for _, in := range []string{"", "1", "h", "1s", "1h1d", "1h1h", "-1h", "1.5h", "1234567d", " 1h"} {
		if _, err := ParseDuration(in); err == nil {
			t.Errorf("ParseDuration(%q) accepted", in)
		}
	}
}
