package listmail_test

import (
	"context"
	"errors"
	"testing"

	"github.com/sesame-mail/sesame/internal/compose"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/sending/listmail"
)

// claims is a claim store whose state the test reads afterwards.
type claims struct {
	claimErr        error
	taken           bool
	failed          string
	released, claim int
}

func (c *claims) ClaimEmail(context.Context, email.Email) (bool, error) {
	c.claim++
	return !c.taken, c.claimErr
}
func (c *claims) ReleaseEmail(context.Context, string, string) error { c.released++; return nil }
func (c *claims) FailEmail(_ context.Context, _, _, reason string) error {
	c.failed = reason
	return nil
}

type transportFunc func(sending.SendInput) error

func (f transportFunc) Send(_ context.Context, in sending.SendInput) (string, error) {
	return "ses-id", f(in)
}

type captureFunc func(sending.SendInput) error

func (f captureFunc) Capture(_ context.Context, in sending.SendInput) error { return f(in) }

// One sequence for campaigns and automations: what each outcome leaves in
// the claim store and at SES.
func TestSenderSend(t *testing.T) {
	throttled := errors.New("throttled")
	rejected := fail.Invalid("", "address blacklisted")
	for name, tc := range map[string]struct {
		claims   claims
		msgErr   error
		ses      []error // SES's answers in turn
		capture  bool
		tries    int // Again allows this many tries
		want     listmail.Outcome
		sesCalls int
		released int
		failed   string
	}{
		"sent":                     {ses: []error{nil}, want: listmail.Sent, sesCalls: 1},
		"claim fault":              {claims: claims{claimErr: errors.New("store down")}, want: listmail.Unclaimed},
		"claimed before":           {claims: claims{taken: true}, want: listmail.ClaimedBefore},
		"does not build":           {msgErr: compose.ErrInvalid, want: listmail.Refused, failed: "not sent: " + compose.ErrInvalid.Error()},
		"links misconfigured":      {msgErr: errors.New("no key"), want: listmail.Released, released: 1},
		"refused by SES":           {ses: []error{rejected}, want: listmail.Refused, sesCalls: 1, failed: "rejected by the email provider: address blacklisted"},
		"throttled, tried once":    {ses: []error{throttled}, want: listmail.Released, sesCalls: 1, released: 1},
		"throttled, then taken":    {ses: []error{throttled, throttled, nil}, tries: 5, want: listmail.Sent, sesCalls: 3},
		"throttled past its tries": {ses: []error{throttled, throttled, throttled}, tries: 2, want: listmail.Released, sesCalls: 2, released: 1},
		"test key: captured, kept": {capture: true, want: listmail.Captured},
	} {
		var calls, captured int
		s := listmail.Sender{
			Claims: &tc.claims,
			Transport: transportFunc(func(in sending.SendInput) error {
				calls++
				if in.To != "ada@example.com" || in.From != "news@acme.test" || in.Tags["email_id"] != "e1" || in.ConfigurationSet != "essential" {
					t.Errorf("%s: input %+v", name, in)
				}
				return tc.ses[calls-1]
			}),
			ConfigSets: sending.ConfigSets{Full: "full", Essential: "essential", Off: "off"},
			Build:      func(m compose.Message) ([]byte, error) { return []byte(m.Subject), nil },
			Captures:   captureFunc(func(sending.SendInput) error { captured++; return nil }),
		}
		m := listmail.Mail{
			Email:   email.Email{ID: "e1", WorkspaceID: "ws", To: "ada@example.com", TrackingMode: email.TrackingEssential},
			From:    "news@acme.test",
			Message: func() (compose.Message, error) { return compose.Message{Subject: "Hi"}, tc.msgErr },
			Capture: tc.capture,
		}
		if tc.tries > 0 {
			m.Again = func(_ context.Context, try int) bool { return try < tc.tries }
		}
		res := s.Send(t.Context(), m)
		if res.Outcome != tc.want || calls != tc.sesCalls || tc.claims.released != tc.released || tc.claims.failed != tc.failed {
			t.Errorf("%s: outcome %d (%+v), SES calls %d, released %d, failed %q", name, res.Outcome, res, calls, tc.claims.released, tc.claims.failed)
		}
		if tc.capture != (captured == 1) {
			t.Errorf("%s: captured %d", name, captured)
		}
	}
}
