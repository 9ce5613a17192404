package devstack_test

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/campaign"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/suppression"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// A draft freezes the segment's subscribed, non-suppressed recipients of
// its own workspace, answers pending_approval with the verdict, and
// queues and sends nothing; a contact who joins later is not added. A
// test key drafts too.
func TestSendBulkFreezesRecipients(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	b := newBulkWS(t, e)
	want := b.vipContacts(t, e, 2)
	e.createContact(t, b.bulkKey, map[string]any{"email": rcpt("unsub"), "tags": []string{"vip"}, "subscribed": false})
	listed := e.createContact(t, b.bulkKey, map[string]any{"email": rcpt("listed"), "tags": []string{"vip"}})
	e.createContact(t, b.bulkKey, map[string]any{"email": rcpt("plain")})
	if _, _, err := e.store.Suppressions.PutSuppression(t.Context(), b.id, suppression.Suppression{Email: listed.Email, Reason: suppression.Bounced}); err != nil {
		t.Fatal(err)
	}
	other := newBulkWS(t, e)
	other.vipContacts(t, e, 1)
	seg := b.segment(t, e, nil)

	out := b.draft(t, e, seg)
	if out.Status != "pending_approval" || out.RecipientCount != 2 || out.Deliverability == nil || out.Deliverability.Verdict == "" {
		t.Fatalf("draft = %+v", out)
	}
	c, err := e.store.Campaigns.GetCampaign(t.Context(), b.id, out.ApprovalID)
	if err != nil {
		t.Fatal(err)
	}
	if got := frozen(t, e, b.id, c); len(got) != 2 || !slices.Contains(got, want[0]) || !slices.Contains(got, want[1]) {
		t.Errorf("frozen %v, want %v", got, want)
	}
	if c.Sender.Email != b.sender.Email || c.Status != campaign.StatusPendingApproval || c.ContentHash == "" {
		t.Errorf("stored %+v", c)
	}
	if n := len(e.ses.Sends()); n != 0 {
		t.Errorf("%d messages sent by a draft", n)
	}
	if ids := e.emailIDs(t, b.key); len(ids) != 0 {
		t.Errorf("a draft recorded emails %v", ids)
	}

	// Joining later changes nothing: the set is frozen.
	b.vipContacts(t, e, 1)
	got := e.getCampaign(t, b.bulkKey, out.ApprovalID)
	if got.Status != "pending_approval" || got.RecipientCount != 2 || got.SegmentID != seg || got.ApprovedAt != nil || got.Subject != "November news" {
		t.Errorf("GET campaign = %+v", got)
	}
	if c2, _ := e.store.Campaigns.GetCampaign(t.Context(), b.id, out.ApprovalID); len(frozen(t, e, b.id, c2)) != 2 {
		t.Error("the frozen set grew")
	}

	testKey := b.testKey // Full preset: lacks the deliberate scope
	e.post(testKey, "/api/v1/send/bulk", map[string]any{"segment_id": seg, "subject": "s", "html": "<p>x</p>"}).
		wantError(t, http.StatusForbidden, "insufficient_scope", "")
	bulkTest, _, err := e.store.Keys.CreateKey(t.Context(), b.id, apikey.Test, "", []apikey.Scope{apikey.EmailSendBulk})
	if err != nil {
		t.Fatal(err)
	}
	var fromTest draftBody
	e.post(bulkTest, "/api/v1/send/bulk", map[string]any{"segment_id": seg, "subject": "s", "html": "<p>x</p>"}).decode(t, http.StatusOK, &fromTest)
	if fromTest.RecipientCount != 3 {
		t.Errorf("test-key draft: %+v", fromTest)
	}
}

// Refused drafts: the exact code and param, nothing stored.
func TestSendBulkBadInput(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	b := newBulkWS(t, e)
	b.vipContacts(t, e, 1)
	seg := b.segment(t, e, nil)
	empty := b.segment(t, e, map[string]any{"all": []any{map[string]any{"field": "tags", "op": "has_tag", "value": "nobody"}}})
	suppressedOnly := b.segment(t, e, map[string]any{"all": []any{map[string]any{"field": "tags", "op": "has_tag", "value": "gone"}}})
	gone := e.createContact(t, b.bulkKey, map[string]any{"email": rcpt("gone"), "tags": []string{"gone"}})
	if _, _, err := e.store.Suppressions.PutSuppression(t.Context(), b.id, suppression.Suppression{Email: gone.Email, Reason: suppression.Complained}); err != nil {
		t.Fatal(err)
	}
	other := newBulkWS(t, e)
	other.vipContacts(t, e, 1)
	foreign := other.segment(t, e, nil)
	body := func(change map[string]any) map[string]any {
		m := map[string]any{"segment_id": seg, "subject": "News", "html": "<p>x</p>"}
		for k, v := range change {
			if v == nil {
				delete(m, k)
			} else {
				m[k] = v
			}
		}
		return m
	}
	tests := map[string]struct {
		body        any
		status      int
		code, param string
	}{
		"no segment_id":       {body(map[string]any{"segment_id": nil}), 400, "missing_field", "segment_id"},
		"no subject":          {body(map[string]any{"subject": nil}), 400, "missing_field", "subject"},
		"no html":             {body(map[string]any{"html": nil}), 400, "missing_field", "html"},
		"segment_id not uuid": {body(map[string]any{"segment_id": "vips"}), 400, "invalid_field", "segment_id"},
		"segment_id a number": {body(map[string]any{"segment_id": 7}), 400, "invalid_field", "segment_id"},
		"subject line break":  {body(map[string]any{"subject": "a\nb"}), 400, "invalid_field", "subject"},
		"blank html":          {body(map[string]any{"html": "  "}), 400, "invalid_field", "html"},
		"html over 256 KB":    {body(map[string]any{"html": strings.Repeat("x", campaign.MaxHTMLBytes+1)}), 400, "invalid_field", "html"},
		"unknown field":       {body(map[string]any{"to": "a@b.c"}), 400, "invalid_field", "to"},
		"empty segment":       {body(map[string]any{"segment_id": empty}), 400, "invalid_field", "segment_id"},
		"all suppressed":      {body(map[string]any{"segment_id": suppressedOnly}), 400, "invalid_field", "segment_id"},
		"foreign segment":     {body(map[string]any{"segment_id": foreign}), 404, "not_found", "segment_id"},
		"unknown segment":     {body(map[string]any{"segment_id": uuid.NewString()}), 404, "not_found", "segment_id"},
		"not JSON":            {`{"segment_id":`, 400, "invalid_field", "body"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			e.bad().post(b.bulkKey, "/api/v1/send/bulk", tc.body).wantError(t, tc.status, tc.code, tc.param)
		})
	}
	e.bad().post(b.bulkKey, "/api/v1/send/bulk", body(nil), "Idempotency-Key", "has space").wantError(t, 400, "invalid_field", "Idempotency-Key")

	// Keys: send-only and the Full preset lack email:send_bulk.
	sendOnly := b.scopedKey(t, e, apikey.EmailSend)
	for name, k := range map[string]string{"send-only": sendOnly, "full preset": b.key} {
		t.Run(name, func(t *testing.T) {
			e.post(k, "/api/v1/send/bulk", body(nil)).wantError(t, http.StatusForbidden, "insufficient_scope", "")
		})
	}
	// A workspace not approved for bulk, and one without a default sender.
	unapproved := newSendWS(t, e, defaultSender())
	unapprovedKey := unapproved.scopedKey(t, e, apikey.EmailSendBulk)
	e.post(unapprovedKey, "/api/v1/send/bulk", body(nil)).wantError(t, http.StatusForbidden, "account_not_approved", "")
	noSender := &bulkWS{sendWS: newSendWS(t, e, identity.Sender{})}
	approved := true
	noSender.update(t, e, workspace.Settings{BulkApproved: &approved})
	noSenderKey := noSender.scopedKey(t, e, apikey.EmailSendBulk)
	e.post(noSenderKey, "/api/v1/send/bulk", body(nil)).wantError(t, http.StatusBadRequest, "missing_field", "from")

	for _, ws := range []string{b.id, unapproved.id, noSender.id} {
		if l, _, _, err := e.store.Campaigns.ListCampaigns(t.Context(), ws, "", "", 10); err != nil || len(l) != 0 {
			t.Errorf("refused drafts stored: %v, %v", l, err)
		}
	}
}

// Idempotency-Key works as on /send: the same body answers the first
// draft again and drafts nothing more; another body is 409.
func TestSendBulkIdempotency(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	b := newBulkWS(t, e)
	b.vipContacts(t, e, 2)
	seg := b.segment(t, e, nil)
	first := b.draft(t, e, seg, "Idempotency-Key", "draft-1")
	again := b.draft(t, e, seg, "Idempotency-Key", "draft-1")
	if again.ApprovalID != first.ApprovalID || again.RecipientCount != 2 {
		t.Errorf("replay %+v, first %+v", again, first)
	}
	e.post(b.bulkKey, "/api/v1/send/bulk", map[string]any{"segment_id": seg, "subject": "Other", "html": "<p>x</p>"}, "Idempotency-Key", "draft-1").
		wantError(t, http.StatusConflict, "idempotency_conflict", "Idempotency-Key")
	if l, _, _, err := e.store.Campaigns.ListCampaigns(t.Context(), b.id, "", "", 10); err != nil || len(l) != 1 {
		t.Errorf("campaigns after a replay: %d, %v", len(l), err)
	}
}

// The owner's approvals over a draft: approve binds the content and
// starts once (twice is harmless); an edit after approval returns it to
// pending_approval and voids the approval; discard then approve is
// refused.
func TestApprovalsLifecycle(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	b := newBulkWS(t, e)
	b.vipContacts(t, e, 3)
	seg := b.segment(t, e, nil)
	starter := &recordingStarter{}
	a := e.approvals(starter)
	ctx := t.Context()

	now := b.draft(t, e, seg)
	shown, err := a.Show(ctx, b.id, now.ApprovalID, 2)
	if err != nil || len(shown.Sample) != 2 || shown.Text != "What changed this month." || !strings.Contains(string(shown.Verdict), `"verdict"`) {
		t.Errorf("show: %d sampled, text %q, verdict %s, %v", len(shown.Sample), shown.Text, shown.Verdict, err)
	}
	// Without the postal address its footer shows, approval is refused
	// and nothing starts.
	none := ""
	b.update(t, e, workspace.Settings{PostalAddress: &none})
	if _, err := a.Approve(ctx, b.id, now.ApprovalID, nil); !errors.Is(err, campaign.ErrNoPostalAddress) || len(starter.started) != 0 {
		t.Errorf("approve without a postal address: %v, started %v", err, starter.started)
	}
	addr := "Shop Ltd, 1 Main St, Springfield"
	b.update(t, e, workspace.Settings{PostalAddress: &addr})

	done, err := a.Approve(ctx, b.id, now.ApprovalID, nil)
	if err != nil || done.Status != campaign.StatusSending || done.Already || done.ApprovedBy != "arn:aws:iam::123456789012:user/owner" {
		t.Fatalf("approve: %+v, %v", done, err)
	}
	twice, err := a.Approve(ctx, b.id, now.ApprovalID, nil)
	if err != nil || !twice.Already || len(starter.started) != 1 {
		t.Errorf("approve twice: %+v, %v, started %v", twice, err, starter.started)
	}
	got := e.getCampaign(t, b.bulkKey, now.ApprovalID)
	if got.Status != "sending" || got.ApprovedAt == nil || got.StartedAt == nil {
		t.Errorf("approved campaign over HTTP: %+v", got)
	}
	if _, err := a.Edit(ctx, b.id, now.ApprovalID, campaign.Edit{Subject: ptr("Late")}); !errors.Is(err, campaign.ErrNotApprovable) {
		t.Errorf("edit of a sending campaign: %v", err)
	}

	// Scheduled, then edited: back to pending, approval void.
	later := b.draft(t, e, seg)
	at := time.Now().Add(24 * time.Hour)
	scheduled, err := a.Approve(ctx, b.id, later.ApprovalID, &at)
	if err != nil || scheduled.Status != campaign.StatusScheduled || len(starter.scheduled) != 1 {
		t.Fatalf("approve --at: %+v, %v", scheduled, err)
	}
	edited, err := a.Edit(ctx, b.id, later.ApprovalID, campaign.Edit{Subject: ptr("December news")})
	if err != nil || edited.Status != campaign.StatusPendingApproval || edited.Approved() || edited.ScheduledAt != nil {
		t.Errorf("edit after approve: %+v, %v", edited, err)
	}
	if got := e.getCampaign(t, b.bulkKey, later.ApprovalID); got.ApprovedAt != nil || got.Subject != "December news" || got.Status != "pending_approval" {
		t.Errorf("edited campaign over HTTP: %+v", got)
	}

	// Discard (the id as typed, in any case), then approve: refused.
	if _, err := a.Discard(ctx, b.id, " "+strings.ToUpper(later.ApprovalID)); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Approve(ctx, b.id, later.ApprovalID, nil); !errors.Is(err, campaign.ErrNotApprovable) {
		t.Errorf("approve after discard: %v", err)
	}
	if len(starter.started) != 1 || len(starter.scheduled) != 1 {
		t.Errorf("started %v, scheduled %v", starter.started, starter.scheduled)
	}
	if _, err := a.Show(ctx, newBulkWS(t, e).id, now.ApprovalID, 1); fail.KindOf(err) != fail.KindNotFound {
		t.Errorf("another workspace shows the campaign: %v", err)
	}
	if _, err := a.Discard(ctx, newBulkWS(t, e).id, later.ApprovalID); fail.KindOf(err) != fail.KindNotFound || fail.ParamOf(err) != "campaign" {
		t.Errorf("another workspace discards the campaign: %v", err)
	}
	if _, err := a.Resume(ctx, newBulkWS(t, e).id, now.ApprovalID); fail.KindOf(err) != fail.KindNotFound || fail.ParamOf(err) != "campaign" {
		t.Errorf("another workspace resumes the campaign: %v", err)
	}
}

// Cancel in each state: pending, scheduled, sending and paused become
// cancelled; sent, cancelled and discarded are 409
// campaign_not_cancellable. Another workspace's campaign, and an id that
// is not a UUID, are 404 on every id route.
func TestCancelCampaignEachState(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	b := newBulkWS(t, e)
	b.vipContacts(t, e, 1)
	seg := b.segment(t, e, nil)
	ctx := t.Context()
	cancellable := map[campaign.Status]bool{
		campaign.StatusPendingApproval: true, campaign.StatusScheduled: true, campaign.StatusSending: true, campaign.StatusPaused: true,
		campaign.StatusSent: false, campaign.StatusCancelled: false, campaign.StatusDiscarded: false,
	}
	for st, ok := range cancellable {
		t.Run(string(st), func(t *testing.T) {
			id := b.draft(t, e, seg).ApprovalID
			if st != campaign.StatusPendingApproval {
				if _, err := e.store.Campaigns.TransitionCampaign(ctx, b.id, id, []campaign.Status{campaign.StatusPendingApproval}, st, time.Now(), ""); err != nil {
					t.Fatal(err)
				}
			}
			res := e.post(b.bulkKey, "/api/v1/campaigns/"+id+"/cancel", nil)
			if !ok {
				res.wantError(t, http.StatusConflict, "campaign_not_cancellable", "")
				if got := e.getCampaign(t, b.bulkKey, id); got.Status != string(st) {
					t.Errorf("status %s after a refused cancel", got.Status)
				}
				return
			}
			var out struct{ Data campaignBody }
			res.decode(t, http.StatusOK, &out)
			if out.Data.Status != "cancelled" || out.Data.CancelledAt == nil {
				t.Errorf("cancelled: %+v", out.Data)
			}
		})
	}

	id := b.draft(t, e, seg).ApprovalID
	other := newBulkWS(t, e)
	for _, path := range []string{"/api/v1/campaigns/" + id, "/api/v1/campaigns/not-a-uuid"} {
		e.bad().get(bearer(other.bulkKey), path).wantError(t, http.StatusNotFound, "not_found", "")
		e.bad().post(other.bulkKey, path+"/cancel", nil).wantError(t, http.StatusNotFound, "not_found", "")
	}
	if got := e.getCampaign(t, b.bulkKey, id); got.Status != "pending_approval" {
		t.Errorf("another workspace's cancel changed it: %s", got.Status)
	}
	readOnly := b.scopedKey(t, e, apikey.CampaignsRead)
	e.post(readOnly, "/api/v1/campaigns/"+id+"/cancel", nil).wantError(t, http.StatusForbidden, "insufficient_scope", "")
}

// The list: newest first, filter status, pages, only the key's
// workspace; a bad status is 400.
func TestListCampaigns(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	b := newBulkWS(t, e)
	b.vipContacts(t, e, 1)
	seg := b.segment(t, e, nil)
	var ids []string
	for range 3 {
		ids = append(ids, b.draft(t, e, seg).ApprovalID)
	}
	if _, err := e.approvals(&recordingStarter{}).Discard(t.Context(), b.id, ids[0]); err != nil {
		t.Fatal(err)
	}
	other := newBulkWS(t, e)
	type page struct {
		Data       []campaignBody `json:"data"`
		HasMore    bool           `json:"has_more"`
		NextCursor *string        `json:"next_cursor"`
	}
	var p page
	e.get(bearer(b.bulkKey), "/api/v1/campaigns?limit=2").decode(t, http.StatusOK, &p)
	if len(p.Data) != 2 || p.Data[0].ID != ids[2] || p.Data[1].ID != ids[1] || !p.HasMore || p.NextCursor == nil {
		t.Fatalf("first page %+v", p)
	}
	var rest page
	e.get(bearer(b.bulkKey), "/api/v1/campaigns?limit=2&cursor="+*p.NextCursor).decode(t, http.StatusOK, &rest)
	if len(rest.Data) != 1 || rest.Data[0].ID != ids[0] || rest.Data[0].Status != "discarded" || rest.HasMore {
		t.Errorf("second page %+v", rest)
	}
	var pending page
	e.get(bearer(b.bulkKey), "/api/v1/campaigns?status=pending_approval").decode(t, http.StatusOK, &pending)
	if len(pending.Data) != 2 {
		t.Errorf("pending: %+v", pending)
	}
	var none page
	e.get(bearer(other.bulkKey), "/api/v1/campaigns").decode(t, http.StatusOK, &none)
	if len(none.Data) != 0 {
		t.Errorf("another workspace lists %+v", none)
	}
	e.bad().get(bearer(b.bulkKey), "/api/v1/campaigns?status=done").wantError(t, http.StatusBadRequest, "invalid_field", "status")
}

func ptr[T any](v T) *T { return &v }

// The approvals queue: pending approval, then scheduled, newest first in
// each; a campaign sending, discarded or another workspace's is not in it.
func TestApprovalsList(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	b := newBulkWS(t, e)
	b.vipContacts(t, e, 1)
	seg := b.segment(t, e, nil)
	ctx := t.Context()
	a := e.approvals(&recordingStarter{})
	var ids []string
	for range 5 {
		ids = append(ids, b.draft(t, e, seg).ApprovalID)
	}
	at := time.Now().Add(time.Hour)
	for _, id := range []string{ids[0], ids[2]} {
		if _, err := a.Approve(ctx, b.id, id, &at); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := a.Approve(ctx, b.id, ids[3], nil); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Discard(ctx, b.id, ids[4]); err != nil {
		t.Fatal(err)
	}
	other := newBulkWS(t, e)
	other.vipContacts(t, e, 1)
	other.draft(t, e, other.segment(t, e, nil))

	list, err := a.List(ctx, b.id)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range list {
		got = append(got, c.ID)
	}
	if want := []string{ids[1], ids[2], ids[0]}; !slices.Equal(got, want) {
		t.Errorf("approvals list = %v, want %v (pending, then scheduled, newest first)", got, want)
	}
}
