package devstack_test

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/campaign"
	"github.com/sesame-mail/sesame/internal/deliverability"
	"github.com/sesame-mail/sesame/internal/segment"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// bulkWS is a workspace approved for bulk sending, with a verified
// default sender and a key minted with email:send_bulk, the campaign
// scopes and contacts:write to set the audience up.
type bulkWS struct {
	*sendWS
	bulkKey string
}

func newBulkWS(t *testing.T, e *env) *bulkWS {
	t.Helper()
	s := newSendWS(t, e, defaultSender())
	approved := true
	// The postal address campaign footers need.
	addr := "Shop Ltd, 1 Main St, Springfield"
	s.update(t, e, workspace.Settings{BulkApproved: &approved, PostalAddress: &addr})
	return &bulkWS{sendWS: s, bulkKey: s.scopedKey(t, e,
		apikey.EmailSendBulk, apikey.CampaignsRead, apikey.CampaignsCancel, apikey.ContactsWrite)}
}

// segment stores a segment of the workspace with filter (vip when nil).
func (b *bulkWS) segment(t *testing.T, e *env, filter map[string]any) string {
	t.Helper()
	if filter == nil {
		filter = vip
	}
	raw, err := json.Marshal(filter)
	if err != nil {
		t.Fatal(err)
	}
	f, err := segment.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	seg := segment.Segment{ID: uuid.Must(uuid.NewV7()).String(), WorkspaceID: b.id, Name: "s", Filter: f, CreatedAt: time.Now()}
	if err := e.store.Segments.CreateSegment(t.Context(), seg); err != nil {
		t.Fatal(err)
	}
	return seg.ID
}

// vipContacts creates n subscribed vip contacts; it returns their ids.
func (b *bulkWS) vipContacts(t *testing.T, e *env, n int) []string {
	t.Helper()
	ids := make([]string, 0, n)
	for range n {
		ids = append(ids, e.createContact(t, b.bulkKey, map[string]any{"email": rcpt("vip"), "tags": []string{"vip"}}).ID)
	}
	return ids
}

// draftBody is the Bulk draft result as the tests read it.
type draftBody struct {
	Status         string                 `json:"status"`
	ApprovalID     string                 `json:"approval_id"`
	RecipientCount int                    `json:"recipient_count"`
	Deliverability *deliverability.Report `json:"deliverability"`
}

// draft POSTs a draft to segmentID that must succeed.
func (b *bulkWS) draft(t *testing.T, e *env, segmentID string, hdr ...string) draftBody {
	t.Helper()
	var out draftBody
	e.post(b.bulkKey, "/api/v1/send/bulk", map[string]any{"segment_id": segmentID, "subject": "November news", "html": "<p>What changed this month.</p>"}, hdr...).
		decode(t, http.StatusOK, &out)
	return out
}

// frozen reads every frozen recipient of a campaign from the table.
func frozen(t *testing.T, e *env, ws string, c campaign.Campaign) []string {
	t.Helper()
	var all []string
	for n := range c.Chunks {
		ids, err := e.store.Campaigns.ReadChunk(t.Context(), ws, c.ID, n)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, ids...)
	}
	return all
}

// campaignBody is the campaign object as the tests read it.
type campaignBody struct {
	ID             string  `json:"id"`
	Subject        string  `json:"subject"`
	Status         string  `json:"status"`
	SegmentID      string  `json:"segment_id"`
	RecipientCount int     `json:"recipient_count"`
	SentCount      int     `json:"sent_count"`
	SkippedCount   int     `json:"skipped_count"`
	ApprovedAt     *string `json:"approved_at"`
	ScheduledAt    *string `json:"scheduled_at"`
	StartedAt      *string `json:"started_at"`
	CancelledAt    *string `json:"cancelled_at"`
	PauseReason    *string `json:"pause_reason"`
}

// getCampaign reads a campaign through GET /api/v1/campaigns/{id}.
func (e *env) getCampaign(t *testing.T, key, id string) campaignBody {
	t.Helper()
	var out struct{ Data campaignBody }
	e.get(bearer(key), "/api/v1/campaigns/"+id).decode(t, http.StatusOK, &out)
	return out.Data
}

// recordingStarter is the engine's place in these tests: it records the
// campaigns started and scheduled.
type recordingStarter struct {
	mu                 sync.Mutex
	started, scheduled []string
}

func (r *recordingStarter) Start(_ context.Context, c campaign.Campaign) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.started = append(r.started, c.ID)
	return nil
}

func (r *recordingStarter) Schedule(_ context.Context, c campaign.Campaign) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.scheduled = append(r.scheduled, c.ID)
	return nil
}

// approver is a fixed approver identity.
type approver string

func (a approver) Identity(context.Context) (string, error) { return string(a), nil }

// approvals is the owner's side of campaigns over e's table, as the
// console and the dashboard reach it.
func (e *env) approvals(starter campaign.Starter) *campaign.Approvals {
	return &campaign.Approvals{
		Store: e.store.Campaigns, Contacts: e.store.Contacts, Approver: approver("arn:aws:iam::123456789012:user/owner"),
		Starter: starter, Check: deliverability.Campaign, Workspaces: e.store.Workspaces,
	}
}
