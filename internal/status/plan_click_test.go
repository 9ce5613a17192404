package status_test

import (
	"testing"

	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/status"
)

// A click the email keeps as its first (same link and time: the same SES
// event) plans no click record; any other click plans one, and a first
// click is marked so its email update may carry it.
func TestPlanFirstClickOnTheEmail(t *testing.T) {
	ev := sesEvent(t, "click")
	kept := email.Click{URL: ev.Click.Link, UserAgent: ev.Click.UserAgent, ClickedAt: ev.Click.Timestamp}
	clicked := func(first email.Click) func(*email.Email) {
		return func(e *email.Email) {
			e.Status, e.ClickedAt, e.FirstClick = email.StatusClicked, &first.ClickedAt, &first
		}
	}
	later := kept
	later.ClickedAt = kept.ClickedAt.Add(-1)
	other := kept
	other.URL += "?other"
	cases := map[string]struct {
		email      email.Email
		record     bool
		firstClick bool
	}{
		"not clicked yet":                 {sentEmail(), true, true},
		"this click kept on the email":    {sentEmail(clicked(kept)), false, false},
		"another time kept on the email":  {sentEmail(clicked(later)), true, false},
		"another link kept on the email":  {sentEmail(clicked(other)), true, false},
		"clicked before clicks were kept": {sentEmail(func(e *email.Email) { e.Status, e.ClickedAt = email.StatusClicked, ptr(at(9, 0, 0, 0)) }), true, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := status.Plan(tc.email, ev)
			if c == nil {
				t.Fatal("nothing planned")
			}
			if (c.Click != nil) != tc.record || c.FirstClick() != tc.firstClick {
				t.Errorf("click record %+v, first click %v; want a record %v, first %v", c.Click, c.FirstClick(), tc.record, tc.firstClick)
			}
		})
	}
}
