package devstack_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/suppression"
	"github.com/sesame-mail/sesame/internal/workspace"
)

func TestSendSuppressed(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	s := newSendWS(t, e, defaultSender())
	to := rcpt("Suppressed")
	if _, _, err := e.store.Suppressions.PutSuppression(t.Context(), s.id, suppression.Suppression{Email: to, Reason: suppression.Bounced}); err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		"same address":            to,
		"other case, with a name": "Sue <" + strings.ToUpper(to) + ">",
	}
	for name, addr := range cases {
		t.Run(name, func(t *testing.T) {
			r := e.postTo(t, e.url, s.key, "/api/v1/send", msg("x", map[string]any{"to": addr}))
			b := r.sent(t, http.StatusOK)
			b.want(t, false, "suppressed")
			e.wantEmail(t, s.key, b.ID, "suppressed", "")
			if got := e.ses.sendsTo(to); len(got) != 0 {
				t.Errorf("suppressed recipient reached SES: %d sends", len(got))
			}
		})
	}
}

// The allowance is used up the way it is in production: live sends go to
// SES, whose Delivery events the status consumer counts; test sends and held
// emails never reach SES and count nothing.
func TestSendMonthlyAllowance(t *testing.T) {
	t.Parallel()
	p := startPipeline(t)
	e := p.env
	s := newSendWS(t, e, defaultSender())
	two := 2
	s.update(t, e, workspace.Settings{MonthlyAllowance: &two})
	p.send(t, s.testKey, msg("quota-test0", nil))
	e.post(s.key, "/api/v1/send", msg("quota-held", map[string]any{"html": "<figure>new layout</figure>"})).sent(t, http.StatusAccepted)
	p.send(t, s.key, msg("quota1", nil))
	p.send(t, s.key, msg("quota2", nil))
	p.drain(t, 2) // the Delivery of each live email
	before := e.emailIDs(t, s.key)
	req := msg("quota", nil)
	r := e.post(s.key, "/api/v1/send", req)
	var eb errorBody
	if err := json.Unmarshal(r.body, &eb); err != nil {
		t.Fatalf("body %s: %v", r.body, err)
	}
	if eb.Error.Code != "monthly_quota_exceeded" {
		t.Errorf("code = %q, want monthly_quota_exceeded; body %s", eb.Error.Code, r.body)
	}
	if secs, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || secs <= 0 {
		t.Errorf("Retry-After = %q, want a positive number of seconds", r.header.Get("Retry-After"))
	}
	if got := e.emailIDs(t, s.key); len(got) != len(before) || len(e.ses.sendsTo(req["to"].(string))) != 0 {
		t.Errorf("over the allowance: %d emails stored (was %d), %d SES sends", len(got), len(before), len(e.ses.sendsTo(req["to"].(string))))
	}
	// Test mode is not counted and not capped.
	e.post(s.testKey, "/api/v1/send", msg("quota-test", nil)).sent(t, http.StatusOK).want(t, true, "sent")
	if r.status != http.StatusTooManyRequests {
		t.Errorf("monthly_quota_exceeded answers HTTP %d, want 429", r.status)
	}
}
