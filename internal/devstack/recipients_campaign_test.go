package devstack_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/campaign"
	"github.com/sesame-mail/sesame/internal/campaign/engine"
)

// Campaigns of 1, 50, 51, 149 and 1,000 recipients (one group, a full
// group, a group and one, three groups, twenty), read as each recipient
// gets it: exactly one message with the campaign's content, the footer
// with the postal address once, the recipient's own one-click unsubscribe
// link and the campaign's List-Id. Every group after the first once went
// out with the footer alone while the campaign reported sent. Not
// parallel: its 1,251 messages hold the shared SES emulator (one Node
// thread) for a while, and would slow other tests' sends past their
// timeouts.
func TestRecipientsOfCampaigns(t *testing.T) {
	k := startKept(t, nil)
	type run struct {
		b  *bulkWS
		id string
		a  audience
	}
	var runs []run
	for _, n := range []int{1, 50, 51, 149, 1000} {
		b := newBulkWS(t, k.env)
		a := k.newAudience(t, b.id, n)
		d := b.draft(t, k.env, b.segment(t, k.env, nil))
		if d.RecipientCount != n {
			t.Fatalf("draft of %d: %+v", n, d)
		}
		k.approve(t, b, d.ApprovalID)
		runs = append(runs, run{b: b, id: d.ApprovalID, a: a})
	}
	drainSends(t, k.sends)
	for _, r := range runs {
		t.Run(fmt.Sprint(len(r.a.addrs)), func(t *testing.T) {
			if c := k.getCampaign(t, r.b.bulkKey, r.id); c.Status != string(campaign.StatusSent) || c.SentCount != len(r.a.addrs) {
				t.Errorf("campaign = %+v, want sent to %d", c, len(r.a.addrs))
			}
			k.box(t, r.b.id).Check(t, k.campaignWants(t, r.b, r.id, r.a)...)
		})
	}
}

// Each chunk of a campaign delivered twice (a second start queues them
// all again, as a resume or a retried start does): each recipient still
// has one message, as wanted.
func TestRecipientsOfCampaignChunkDeliveredTwice(t *testing.T) {
	t.Parallel()
	k := startKept(t, nil)
	b := newBulkWS(t, k.env)
	a := k.newAudience(t, b.id, 51)
	d := b.draft(t, k.env, b.segment(t, k.env, nil))
	k.approve(t, b, d.ApprovalID)
	c, err := k.store.Campaigns.GetCampaign(t.Context(), b.id, d.ApprovalID)
	if err != nil {
		t.Fatal(err)
	}
	if err := k.deps.CampaignStarter.Start(t.Context(), c); err != nil {
		t.Fatal(err)
	}
	drainSends(t, k.sends)
	if c := k.getCampaign(t, b.bulkKey, d.ApprovalID); c.Status != string(campaign.StatusSent) || c.SentCount != 51 {
		t.Errorf("campaign = %+v, want sent to 51", c)
	}
	k.box(t, b.id).Check(t, k.campaignWants(t, b, d.ApprovalID, a)...)
}

// A campaign whose sender runs short of time after each group carries on
// in a new invocation each time (the chunk handed over on the queue): 149
// recipients take at least three invocations, and each recipient has
// one message, as wanted.
func TestRecipientsOfCampaignAcrossInvocations(t *testing.T) {
	t.Parallel()
	k := startKept(t, nil)
	sends, invocations := k.shortInvocations(t)
	b := newBulkWS(t, k.env)
	a := k.newAudience(t, b.id, 149)
	d := b.draft(t, k.env, b.segment(t, k.env, nil))
	k.approve(t, b, d.ApprovalID)
	var c campaignBody
	for range 20 {
		if _, err := sends.PollOnce(t.Context()); err != nil {
			t.Fatal(err)
		}
		if c = k.getCampaign(t, b.bulkKey, d.ApprovalID); c.Status == string(campaign.StatusSent) {
			break
		}
	}
	if c.Status != string(campaign.StatusSent) || c.SentCount != 149 || invocations.Load() < 3 {
		t.Fatalf("campaign = %+v after %d invocations, want sent to 149 over three or more", c, invocations.Load())
	}
	k.box(t, b.id).Check(t, k.campaignWants(t, b, d.ApprovalID, a)...)
}

// A campaign the reputation breaker pauses (bounces counted by the SES
// events pipeline as it goes), resumed by the owner once the window has
// passed: what went before the pause and what went after it, together,
// is one message per recipient, as wanted, the simulator's addresses
// included.
func TestRecipientsOfCampaignPausedAndResumed(t *testing.T) {
	t.Parallel()
	th := engine.Thresholds{BounceRate: 0.01, ComplaintRate: 0.01, MinSample: 50, Window: time.Hour}
	k := startKept(t, &th)
	b := newBulkWS(t, k.env)
	addrs := campaignRecipients(110, 0, "")
	for i := range 11 { // the simulator's bounce box, labelled apart from other tests' (the emulator's store is shared)
		addrs[i] = "bounce+" + uuid.NewString()[:13] + "@simulator.amazonses.com"
	}
	a := audience{addrs: addrs, ids: k.seedVIPs(t, b.id, addrs)}
	d := b.draft(t, k.env, b.segment(t, k.env, nil))
	k.approve(t, b, d.ApprovalID)
	p := &campaignPipeline{env: k.env, sends: k.sends, status: k.status}
	got := p.sendUntil(t, b.bulkKey, d.ApprovalID, campaign.StatusPaused)
	if got.PauseReason == nil || !strings.Contains(*got.PauseReason, "bounce rate") {
		t.Fatalf("campaign = %+v, want paused for the bounce rate", got)
	}
	approvals := k.approvals(k.deps.CampaignStarter)
	for round := 0; got.Status == string(campaign.StatusPaused); round++ {
		if round == 3 {
			t.Fatalf("still paused after %d resumes: %+v", round, got)
		}
		k.clock.Add(th.Window + time.Hour)
		if _, err := approvals.Resume(t.Context(), b.id, d.ApprovalID); err != nil {
			t.Fatal(err)
		}
		got = p.sendUntil(t, b.bulkKey, d.ApprovalID, campaign.StatusPaused, campaign.StatusSent)
	}
	if got.SentCount != 110 {
		t.Fatalf("campaign = %+v, want 110 sent", got)
	}
	k.box(t, b.id).Check(t, k.campaignWants(t, b, d.ApprovalID, a)...)
}
