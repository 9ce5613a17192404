package engine

import (
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/campaign"
)

// The breaker trips at the bounce or complaint threshold, never below the
// minimum sample.
func TestThresholdsTrip(t *testing.T) {
	th := DefaultThresholds
	for name, tc := range map[string]struct {
		tally campaign.Tally
		trip  bool
	}{
		"clean":                {campaign.Tally{Sent: 10000, Bounced: 100, Complained: 2}, false},
		"bounces at 4%":        {campaign.Tally{Sent: 1000, Bounced: 40}, true},
		"bounces under 4%":     {campaign.Tally{Sent: 1000, Bounced: 39}, false},
		"complaints at 0.08%":  {campaign.Tally{Sent: 10000, Complained: 8}, true},
		"under minimum sample": {campaign.Tally{Sent: 499, Bounced: 200, Complained: 100}, false},
		"nothing sent":         {campaign.Tally{}, false},
	} {
		if _, got := th.Trip(tc.tally); got != tc.trip {
			t.Errorf("%s: trip = %v, want %v", name, got, tc.trip)
		}
	}
}

// Each threshold the configuration leaves unset is the documented default.
func TestThresholdsOrDefaults(t *testing.T) {
	got := Thresholds{ComplaintRate: 0.001, Window: time.Hour}.OrDefaults()
	want := Thresholds{BounceRate: 0.04, ComplaintRate: 0.001, MinSample: 500, Window: time.Hour}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if (Thresholds{}).OrDefaults() != DefaultThresholds {
		t.Error("no thresholds set are not the defaults")
	}
}
