package devstack_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/mail"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/api"
	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/campaign"
	"github.com/sesame-mail/sesame/internal/campaign/engine"
	"github.com/sesame-mail/sesame/internal/devstack"
	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/queue/queuetest"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/unsubscribe"
)

// startCampaigns is a dev server whose campaign emails are kept raw as
// `sesame dev` keeps them, and the poller of its sends queue with the
// dev server's consumer.
func startCampaigns(t *testing.T) (*env, *queue.Poller) {
	t.Helper()
	return startCampaignsAt(t, nil)
}

// startCampaignsAt is startCampaigns with the table (and so the engine)
// on clock.
func startCampaignsAt(t *testing.T, clock *dynamotest.Clock) (*env, *queue.Poller) {
	t.Helper()
	dir := t.TempDir()
	e := newEnv(t, func(deps api.Deps, _ *queuetest.Set) (api.Deps, []httpapi.Route) {
		if clock != nil {
			deps.Repos.Table.Now = clock.Now
		}
		raw := &devstack.RawMessages{Dir: dir, Next: deps.CampaignSender.Transport, Emails: deps.Repos.Emails}
		deps.CampaignSender.Transport = raw
		return deps, raw.Routes()
	})
	return e, e.queues.Poller(t, queue.Sends.Name, api.Consumers(e.deps)[routes.CampaignSender])
}

// campaignWS is a bulk workspace with n vip contacts.
func campaignWS(t *testing.T, e *env, n int) (*bulkWS, []contactBody) {
	t.Helper()
	b := newBulkWS(t, e)
	out := make([]contactBody, 0, n)
	for range n {
		out = append(out, e.createContact(t, b.bulkKey, map[string]any{"email": rcpt("vip"), "tags": []string{"vip"}}))
	}
	return b, out
}

// drainSends polls the sends queue until it is empty.
func drainSends(t *testing.T, sends *queue.Poller) {
	t.Helper()
	for range 50 {
		n, err := sends.PollOnce(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
	}
	t.Fatal("the sends queue never emptied")
}

// Draft over HTTP, approve through the owner service, and the sends
// queue's consumer sends every recipient once, even with every chunk
// queued twice; the contact who unsubscribed after the draft is skipped.
func TestListSendsEachRecipientOnce(t *testing.T) {
	t.Parallel()
	e, sends := startCampaigns(t)
	b, contacts := campaignWS(t, e, 3)
	d := b.draft(t, e, b.segment(t, e, nil))
	if d.RecipientCount != 3 {
		t.Fatalf("draft = %+v", d)
	}
	gone := contacts[2].Email
	if r := e.call(b.bulkKey, http.MethodPatch, "/api/v1/contacts/"+contacts[2].ID, map[string]any{"subscribed": false}); r.status != http.StatusOK {
		t.Fatalf("unsubscribe: %d %s", r.status, r.body)
	}

	ok, err := e.approvals(e.deps.CampaignStarter).Approve(t.Context(), b.id, d.ApprovalID, nil)
	if err != nil {
		t.Fatal(err)
	}
	// A second start (resume, a lost start retried) queues every chunk again.
	if err := e.deps.CampaignStarter.Start(t.Context(), ok.Campaign); err != nil {
		t.Fatal(err)
	}
	drainSends(t, sends)

	c := e.getCampaign(t, b.bulkKey, d.ApprovalID)
	if c.Status != string(campaign.StatusSent) || c.SentCount != 2 || c.SkippedCount != 1 {
		t.Errorf("campaign = %+v, want sent, 2 sent, 1 skipped", c)
	}
	for _, ct := range contacts[:2] {
		to := ct.Email
		if got := e.ses.sendsTo(to); len(got) != 1 {
			t.Errorf("%s: %d sends, want 1", to, len(got))
		}
	}
	if got := e.ses.sendsTo(gone); len(got) != 0 {
		t.Errorf("unsubscribed %s: %d sends, want 0", gone, len(got))
	}

	byEmail := map[string]string{}
	for _, ct := range contacts {
		byEmail[ct.Email] = ct.ID
	}
	var list listBody
	e.get(bearer(b.key), "/api/v1/emails?type=campaign").decode(t, http.StatusOK, &list)
	if len(list.Data) != 2 {
		t.Fatalf("GET /emails?type=campaign: %d emails, want 2", len(list.Data))
	}
	for _, em := range list.Data {
		r := e.get(bearer(b.key), "/dev/emails/"+em.ID+"/raw")
		if r.status != http.StatusOK {
			t.Fatalf("raw %s: %d %s", em.ID, r.status, r.body)
		}
		msg, err := mail.ReadMessage(bytes.NewReader(r.body))
		if err != nil {
			t.Fatal(err)
		}
		to, err := mail.ParseAddress(msg.Header.Get("To"))
		if err != nil {
			t.Fatal(err)
		}
		link, err := e.deps.CampaignSender.Links.URL(unsubscribe.Token{WorkspaceID: b.id, ContactID: byEmail[to.Address],
			Source: unsubscribe.Source{Kind: unsubscribe.SourceCampaign, ID: d.ApprovalID}})
		if err != nil {
			t.Fatal(err)
		}
		want := "<" + link + ">, <mailto:" + b.sender.Email + "?subject=unsubscribe>"
		if got := msg.Header.Get("List-Unsubscribe"); got != want || !strings.HasPrefix(link, e.url+unsubscribe.PathPrefix) {
			t.Errorf("email %s: List-Unsubscribe %q, want %q on %s", em.ID, got, want, e.url)
		}
		if got := msg.Header.Get("List-Unsubscribe-Post"); got != "List-Unsubscribe=One-Click" {
			t.Errorf("email %s: List-Unsubscribe-Post %q", em.ID, got)
		}
		if !bytes.Contains(r.body, []byte("Springfield")) {
			t.Errorf("email %s has no postal address footer", em.ID)
		}
	}
}

// A cancel while the campaign is sending stops it mid-group: once the
// cancel is answered no send starts but those already past the status
// check (at most one per other worker), and the campaign counts exactly
// what went.
func TestCampaignCancelStopsTheSend(t *testing.T) {
	t.Parallel()
	e, sends := startCampaigns(t)
	b, _ := campaignWS(t, e, 60) // more than one group of 50
	d := b.draft(t, e, b.segment(t, e, nil))
	if _, err := e.approvals(e.deps.CampaignStarter).Approve(t.Context(), b.id, d.ApprovalID, nil); err != nil {
		t.Fatal(err)
	}
	// The first email handed to SES cancels the campaign over the API;
	// the sends that start once the cancel is answered are counted.
	var cancelled, afterAnswer atomic.Int32
	var answered atomic.Bool
	e.ses.setFail(func(sending.SendInput) error {
		if answered.Load() {
			afterAnswer.Add(1)
		}
		if cancelled.CompareAndSwap(0, 1) {
			req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, e.url+"/api/v1/campaigns/"+d.ApprovalID+"/cancel", nil)
			req.Header.Set("Authorization", bearer(b.bulkKey))
			if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != http.StatusOK {
				cancelled.Store(2)
			} else {
				res.Body.Close()
				answered.Store(true)
			}
		}
		return nil
	})
	drainSends(t, sends)

	if cancelled.Load() != 1 {
		t.Fatal("the cancel request failed")
	}
	c := e.getCampaign(t, b.bulkKey, d.ApprovalID)
	n := len(e.ses.Sends())
	// Each other worker may have passed the status check before the
	// answer; none starts a send after it.
	if late := int(afterAnswer.Load()); late > engine.Workers-1 {
		t.Errorf("%d sends started after the cancel was answered, want at most the %d under way", late, engine.Workers-1)
	}
	if c.Status != string(campaign.StatusCancelled) || n == 0 || n >= 60 || c.SentCount != n {
		t.Errorf("campaign = %+v after %d sends, want cancelled with fewer than 60 sent, each counted", c, n)
	}
	var list listBody
	e.get(bearer(b.key), "/api/v1/emails?type=campaign&limit=100").decode(t, http.StatusOK, &list)
	if len(list.Data) != n {
		t.Errorf("GET /emails?type=campaign: %d emails, want %d", len(list.Data), n)
	}
}

// Cancelled is final: a paused campaign (its chunks still queued)
// cancelled over the API is neither resumed nor approved again, and the
// senders draining its chunks send nobody.
func TestCampaignCancelledWhilePausedIsFinal(t *testing.T) {
	t.Parallel()
	e, sends := startCampaigns(t)
	b, _ := campaignWS(t, e, 3)
	d := b.draft(t, e, b.segment(t, e, nil))
	approvals := e.approvals(e.deps.CampaignStarter)
	if _, err := approvals.Approve(t.Context(), b.id, d.ApprovalID, nil); err != nil {
		t.Fatal(err)
	}
	// Paused as the reputation breaker pauses it, before any chunk ran.
	if _, err := e.store.Campaigns.TransitionCampaign(t.Context(), b.id, d.ApprovalID, []campaign.Status{campaign.StatusSending}, campaign.StatusPaused, time.Now(), "bounce rate"); err != nil {
		t.Fatal(err)
	}
	var out struct{ Data campaignBody }
	e.post(b.bulkKey, "/api/v1/campaigns/"+d.ApprovalID+"/cancel", nil).decode(t, http.StatusOK, &out)
	if out.Data.Status != string(campaign.StatusCancelled) {
		t.Fatalf("cancel: %+v", out.Data)
	}

	if _, err := approvals.Resume(t.Context(), b.id, d.ApprovalID); !errors.Is(err, campaign.ErrNotApprovable) {
		t.Errorf("resume a cancelled campaign: %v, want ErrNotApprovable", err)
	}
	if _, err := approvals.Approve(t.Context(), b.id, d.ApprovalID, nil); !errors.Is(err, campaign.ErrNotApprovable) {
		t.Errorf("approve a cancelled campaign: %v, want ErrNotApprovable", err)
	}
	drainSends(t, sends)
	if n := len(e.ses.Sends()); n != 0 {
		t.Errorf("%d sends after the cancel, want none", n)
	}
	if c := e.getCampaign(t, b.bulkKey, d.ApprovalID); c.Status != string(campaign.StatusCancelled) || c.SentCount != 0 {
		t.Errorf("campaign = %+v, want cancelled with none sent", c)
	}
}

// A campaign approved for later starts on the first tick at or after its
// time, not before: the dev server's one-minute tick on the table's clock.
func TestCampaignScheduledStartsOnTheTick(t *testing.T) {
	t.Parallel()
	now := time.Now().UTC()
	clock := dynamotest.NewClock(now)
	e, sends := startCampaignsAt(t, clock)
	b, contacts := campaignWS(t, e, 2)
	d := b.draft(t, e, b.segment(t, e, nil))
	at := now.Add(10 * time.Minute)
	approvals := e.approvals(e.deps.CampaignStarter)
	approvals.Now = clock.Now
	if _, err := approvals.Approve(t.Context(), b.id, d.ApprovalID, &at); err != nil {
		t.Fatal(err)
	}
	tick := api.Ticks(e.deps)[routes.CampaignTick]

	clock.Set(at.Add(-time.Minute))
	if err := tick(t.Context()); err != nil {
		t.Fatal(err)
	}
	drainSends(t, sends)
	if c := e.getCampaign(t, b.bulkKey, d.ApprovalID); c.Status != string(campaign.StatusScheduled) || len(e.ses.Sends()) != 0 {
		t.Fatalf("before its time: %+v, %d sends", c, len(e.ses.Sends()))
	}

	clock.Set(at.Add(30 * time.Second))
	if err := tick(t.Context()); err != nil {
		t.Fatal(err)
	}
	drainSends(t, sends)
	if c := e.getCampaign(t, b.bulkKey, d.ApprovalID); c.Status != string(campaign.StatusSent) || c.SentCount != 2 {
		t.Errorf("after its time: %+v, want sent to 2", c)
	}
	for _, ct := range contacts {
		if got := e.ses.sendsTo(ct.Email); len(got) != 1 {
			t.Errorf("%s: %d sends, want 1", ct.Email, len(got))
		}
	}
}

// A campaign drafted with a test key (ps_test_) is, once the owner
// approves it, sent for real: the approval is the owner's, so its emails
// are live and reach SES.
func TestCampaignFromTestKeyDraftSendsLive(t *testing.T) {
	t.Parallel()
	e, sends := startCampaigns(t)
	b, contacts := campaignWS(t, e, 2)
	testKey, _, err := e.store.Keys.CreateKey(t.Context(), b.id, apikey.Test, "", []apikey.Scope{apikey.EmailSendBulk})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(testKey, "ps_test_") {
		t.Fatalf("test key %q", testKey)
	}
	var d draftBody
	e.post(testKey, "/api/v1/send/bulk", map[string]any{"segment_id": b.segment(t, e, nil), "subject": "News", "html": "<p>x</p>"}).
		decode(t, http.StatusOK, &d)
	if _, err := e.approvals(e.deps.CampaignStarter).Approve(t.Context(), b.id, d.ApprovalID, nil); err != nil {
		t.Fatal(err)
	}
	drainSends(t, sends)

	for _, ct := range contacts {
		if got := e.ses.sendsTo(ct.Email); len(got) != 1 {
			t.Errorf("%s: %d SES sends, want 1", ct.Email, len(got))
		}
	}
	var list listBody
	e.get(bearer(b.key), "/api/v1/emails?type=campaign").decode(t, http.StatusOK, &list)
	if len(list.Data) != 2 {
		t.Fatalf("GET /emails?type=campaign: %d emails, want 2", len(list.Data))
	}
	for _, em := range list.Data {
		if em.Environment != string(apikey.Live) || em.Status != "sent" {
			t.Errorf("email %s: %s, %s; want live and sent", em.ID, em.Environment, em.Status)
		}
	}
}
