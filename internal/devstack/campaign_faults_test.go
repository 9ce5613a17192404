package devstack_test

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/api"
	"github.com/sesame-mail/sesame/internal/campaign"
	"github.com/sesame-mail/sesame/internal/campaign/engine"
	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/ses"
)

// Bounces or complaints counted by the SES events pipeline as the
// campaign goes trip the reputation breaker: the campaign pauses at a
// group's check with the reason. 11 of 110 recipients are the simulator's,
// so at least one is among the first two groups of 50, whatever the frozen
// order. Resumed within the window it pauses again before a send; resumed
// once the window has passed, it sends on, every recipient once in the end.
func TestCampaignBreakerPausesThenResumeSendsTheRest(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct{ box, reason string }{
		"bounces":    {box: "bounce", reason: "bounce rate"},
		"complaints": {box: "complaint", reason: "complaint rate"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			th := engine.Thresholds{BounceRate: 0.01, ComplaintRate: 0.01, MinSample: 50, Window: time.Hour}
			p := startCampaignPipeline(t, th)
			b := newBulkWS(t, p.env)
			addrs := campaignRecipients(110, 11, tc.box)
			b.contactsTo(t, p.env, addrs)
			d := b.draft(t, p.env, b.segment(t, p.env, nil))
			approvals := p.approvals(p.deps.CampaignStarter)
			if _, err := approvals.Approve(t.Context(), b.id, d.ApprovalID, nil); err != nil {
				t.Fatal(err)
			}
			got := p.sendUntil(t, b.bulkKey, d.ApprovalID, campaign.StatusPaused)
			if (got.SentCount != 50 && got.SentCount != 100) || got.PauseReason == nil || !strings.Contains(*got.PauseReason, tc.reason) {
				t.Fatalf("paused campaign = %+v (reason %v), want 50 or 100 sent and a %s reason", got, got.PauseReason, tc.reason)
			}
			if sent := len(p.ses.Sends()); sent != got.SentCount {
				t.Fatalf("%d sends while paused, want %d", sent, got.SentCount)
			}

			if _, err := approvals.Resume(t.Context(), b.id, d.ApprovalID); err != nil {
				t.Fatal(err)
			}
			if again := p.sendUntil(t, b.bulkKey, d.ApprovalID, campaign.StatusPaused); again.SentCount != got.SentCount {
				t.Fatalf("resumed within the window: %+v, want paused at %d sent", again, got.SentCount)
			}

			// Each time the window has passed (it counts whole hours), the
			// owner resumes it: it sends on from where it stopped, until the
			// simulator's addresses left trip the breaker again or all went.
			for round := 0; got.Status == string(campaign.StatusPaused); round++ {
				if round == 3 {
					t.Fatalf("still paused after %d resumes: %+v", round, got)
				}
				if got.PauseReason == nil || !strings.Contains(*got.PauseReason, tc.reason) {
					t.Fatalf("paused campaign = %+v (reason %v), want a %s reason", got, deref(got.PauseReason), tc.reason)
				}
				p.clock.Set(p.clock.Now().Add(th.Window + time.Hour))
				if _, err := approvals.Resume(t.Context(), b.id, d.ApprovalID); err != nil {
					t.Fatal(err)
				}
				got = p.sendUntil(t, b.bulkKey, d.ApprovalID, campaign.StatusPaused, campaign.StatusSent)
			}
			if got.SentCount != 110 || got.SkippedCount != 0 {
				t.Errorf("resumed campaign = %+v, want 110 sent", got)
			}
			p.wantOneSendEach(t, addrs)
		})
	}
}

// SES throttling during a campaign: the sender tries a throttled email
// again, and one throttled past a delivery's tries goes back with its
// chunk; no recipient is lost or sent twice.
func TestCampaignSESThrottlingLosesNoneSendsNoneTwice(t *testing.T) {
	t.Parallel()
	p := startCampaignPipeline(t, engine.DefaultThresholds)
	b := newBulkWS(t, p.env)
	addrs := campaignRecipients(60, 0, "")
	b.contactsTo(t, p.env, addrs)
	// Every third recipient is throttled twice; the stubborn one six
	// times, past the five tries of one delivery.
	stubborn := addrs[7]
	throttled := map[string]int{stubborn: 6}
	for i := 0; i < len(addrs); i += 3 {
		throttled[addrs[i]] = 2
	}
	var mu sync.Mutex
	tries, accepted := map[string]int{}, map[string]int{}
	p.ses.setFail(func(in sending.SendInput) error {
		mu.Lock()
		defer mu.Unlock()
		if tries[in.To]++; tries[in.To] <= throttled[in.To] {
			return fmt.Errorf("%w: maximum sending rate exceeded", ses.ErrThrottled)
		}
		accepted[in.To]++
		return nil
	})
	d := b.draft(t, p.env, b.segment(t, p.env, nil))
	if _, err := p.approvals(p.deps.CampaignStarter).Approve(t.Context(), b.id, d.ApprovalID, nil); err != nil {
		t.Fatal(err)
	}
	got := p.sendUntil(t, b.bulkKey, d.ApprovalID, campaign.StatusSent)
	if got.SentCount != 60 || got.SkippedCount != 0 {
		t.Errorf("campaign = %+v, want 60 sent", got)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, a := range addrs {
		if accepted[a] != 1 || tries[a] != throttled[a]+1 {
			t.Errorf("%s: accepted %d times after %d tries, want once after %d", a, accepted[a], tries[a], throttled[a]+1)
		}
	}
	var list listBody
	p.get(bearer(b.key), "/api/v1/emails?type=campaign&limit=100").decode(t, http.StatusOK, &list)
	if len(list.Data) != 60 {
		t.Errorf("GET /emails?type=campaign: %d emails, want 60", len(list.Data))
	}
}

// An approval whose start the engine did not take is not stranded: a
// campaign approved for later is approved again, which records its start
// (and it starts on the tick); one approved to start now is resumed.
// Both send every recipient once.
func TestCampaignApprovedButStartFailed(t *testing.T) {
	t.Parallel()
	for name, later := range map[string]bool{"approve --at, approve again": true, "approve now, resume": false} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			now := time.Now().UTC()
			clock := dynamotest.NewClock(now)
			e, sends := startCampaignsAt(t, clock)
			b, contacts := campaignWS(t, e, 2)
			d := b.draft(t, e, b.segment(t, e, nil))
			starter := &failingStarter{Starter: e.deps.CampaignStarter, fail: true}
			approvals := e.approvals(starter)
			approvals.Now = clock.Now
			var at *time.Time
			again := "resume"
			if later {
				at, again = ptr(now.Add(10*time.Minute)), "approve it again"
			}
			_, err := approvals.Approve(t.Context(), b.id, d.ApprovalID, at)
			if !errors.Is(err, errStarterDown) || !strings.Contains(err.Error(), again) {
				t.Fatalf("approve with the engine down: %v, want it to say %q", err, again)
			}

			starter.fail = false
			if later {
				if a, err := approvals.Approve(t.Context(), b.id, d.ApprovalID, at); err != nil || !a.Already {
					t.Fatalf("approve again: %+v, %v", a, err)
				}
				clock.Set(at.Add(30 * time.Second))
				if err := api.Ticks(e.deps)[routes.CampaignTick](t.Context()); err != nil {
					t.Fatal(err)
				}
			} else if _, err := approvals.Resume(t.Context(), b.id, d.ApprovalID); err != nil {
				t.Fatal(err)
			}
			drainSends(t, sends)
			if c := e.getCampaign(t, b.bulkKey, d.ApprovalID); c.Status != string(campaign.StatusSent) || c.SentCount != 2 {
				t.Errorf("campaign = %+v, want sent to 2", c)
			}
			for _, ct := range contacts {
				if got := e.ses.sendsTo(ct.Email); len(got) != 1 {
					t.Errorf("%s: %d sends, want 1", ct.Email, len(got))
				}
			}
		})
	}
}
