package sending_test

import (
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/sending"
)

func scheduledAt(at time.Time) edit {
	return func(in *sending.PlanInput) { in.Request.ScheduledAt = at.Format(time.RFC3339) }
}

// A scheduled send is decided at accept only as far as its sender,
// tracking and allowance; its status waits for its time, whatever the
// template or the recipient's suppression say now.
func TestPlanSchedule(t *testing.T) {
	cases := map[string][]edit{
		"cleared layout":       {scheduledAt(now.Add(time.Hour))},
		"new layout":           {scheduledAt(now.Add(time.Hour)), newTemplate},
		"suppressed recipient": {scheduledAt(now.Add(time.Hour)), suppressed},
		"test key":             {scheduledAt(now.Add(time.Hour)), testKey},
		"30 days ahead":        {scheduledAt(now.Add(sending.MaxScheduleAhead))},
	}
	for name, edits := range cases {
		t.Run(name, func(t *testing.T) {
			d, err := sending.Plan(input(edits...))
			if err != nil {
				t.Fatal(err)
			}
			if d.Action != sending.ActionSchedule || d.Email.Status != email.StatusScheduled || d.Answer.StatusCode != 200 || d.Email.ScheduledAt == nil {
				t.Errorf("decision %v %s %d %v", d.Action, d.Email.Status, d.Answer.StatusCode, d.Email.ScheduledAt)
			}
		})
	}
	refused := map[string][]edit{
		"now":            {scheduledAt(now)},
		"in the past":    {scheduledAt(now.Add(-time.Minute))},
		"over 30 days":   {scheduledAt(now.Add(sending.MaxScheduleAhead + time.Second))},
		"allowance used": {scheduledAt(now.Add(time.Hour)), allowanceUsed},
		"unknown sender": {scheduledAt(now.Add(time.Hour)), unknownSenderID},
		"tracking off":   {scheduledAt(now.Add(time.Hour)), trackingOff},
	}
	params := map[string]string{"now": "scheduled_at", "in the past": "scheduled_at", "over 30 days": "scheduled_at"}
	for name, edits := range refused {
		t.Run("refused "+name, func(t *testing.T) {
			_, err := sending.Plan(input(edits...))
			e, ok := fail.As(err)
			if !ok {
				t.Fatalf("Plan = %v, want a refusal", err)
			}
			if p, ok := params[name]; ok && e.Param != p {
				t.Errorf("param %q, want %q", e.Param, p)
			}
		})
	}
}

// A wake-up is never before the email's time, on a whole minute, and
// never in a minute the tick may already have swept.
func TestWakeMinute(t *testing.T) {
	at := func(s string) time.Time { v, _ := time.Parse(time.RFC3339Nano, s); return v }
	cases := []struct{ due, now, want string }{
		{"2026-11-20T09:00:00Z", "2026-11-20T08:30:00Z", "2026-11-20T09:00:00Z"},
		{"2026-11-20T09:00:01Z", "2026-11-20T08:30:00Z", "2026-11-20T09:01:00Z"},
		{"2026-11-20T08:30:05Z", "2026-11-20T08:30:00Z", "2026-11-20T08:31:00Z"},
		{"2026-11-20T08:31:00Z", "2026-11-20T08:30:59.5Z", "2026-11-20T08:32:00Z"},
	}
	for _, c := range cases {
		if got := sending.WakeMinute(at(c.due), at(c.now)); !got.Equal(at(c.want)) {
			t.Errorf("WakeMinute(%s, %s) = %s, want %s", c.due, c.now, got, c.want)
		}
	}
}
