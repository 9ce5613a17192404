package dashboard

import (
	"fmt"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/email"
)

// An email's timeline says sent only of an email that reached SES; a held,
// suppressed or failed one was accepted, and its end is shown.
func TestTimeline(t *testing.T) {
	at := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	later := at.Add(time.Minute)
	for name, tc := range map[string]struct {
		e    email.Email
		want string
	}{
		"delivered and opened": {email.Email{Status: email.StatusOpened, SentAt: at, DeliveredAt: &at, OpenedAt: &later}, "[sent delivered opened]"},
		"sent":                 {email.Email{Status: email.StatusSent, SentAt: at}, "[sent]"},
		"bounced":              {email.Email{Status: email.StatusBounced, SentAt: at, BouncedAt: &later}, "[sent bounced!]"},
		"held":                 {email.Email{Status: email.StatusHeld, SentAt: at}, "[accepted held for review]"},
		"denied":               {email.Email{Status: email.StatusFailed, SentAt: at, Error: "not sent: denied by the workspace owner"}, "[accepted failed: not sent: denied by the workspace owner!]"},
		"suppressed":           {email.Email{Status: email.StatusSuppressed, SentAt: at}, "[accepted not sent: the address is on the do-not-send list!]"},
	} {
		var got []string
		for _, s := range timeline(tc.e) {
			label := s.Label
			if s.Bad {
				label += "!"
			}
			got = append(got, label)
		}
		if fmt.Sprint(got) != tc.want {
			t.Errorf("%s: %v, want %s", name, got, tc.want)
		}
	}
}
