package engine

import (
	"testing"

	"github.com/sesame-mail/sesame/internal/sending/capacity"
)

// The configured rate wins; the account's is asked when none is set; with
// no account to ask, the SES sandbox's one email per second.
func TestPaceRate(t *testing.T) {
	account := capacity.FixedRate(14)
	for name, tc := range map[string]struct {
		configured float64
		account    capacity.RateSource
		want       float64
	}{
		"configured":          {configured: 50, account: account, want: 50},
		"the account's":       {account: account, want: 14},
		"no account: sandbox": {want: 1},
	} {
		got, err := PaceRate(tc.configured, tc.account).MaxSendRate(t.Context())
		if err != nil || got != tc.want {
			t.Errorf("%s: %v, %v; want %v", name, got, err, tc.want)
		}
	}
}
