package campaigndb_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/campaign"
	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
	"github.com/sesame-mail/sesame/internal/dynamo/repositories"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/sending"
)

// newDraft stores a pending campaign of ws with n recipients and returns
// it with their ids.
func newDraft(t *testing.T, store repositories.Set, ws string, n int, created time.Time) (campaign.Campaign, []string) {
	t.Helper()
	ids := make([]string, n)
	for i := range ids {
		ids[i] = uuid.Must(uuid.NewV7()).String()
	}
	sender := identity.Sender{ID: "s1", Name: "Acme", Email: "news@acme.test"}
	c := campaign.Campaign{
		ID: uuid.Must(uuid.NewV7()).String(), WorkspaceID: ws, Subject: "Hello", HTML: "<p>Hi</p>", Sender: sender,
		SegmentID: uuid.Must(uuid.NewV7()).String(), Status: campaign.StatusPendingApproval, RecipientCount: n,
		ContentHash: campaign.ContentHash("Hello", "<p>Hi</p>", sender), CreatedAt: created,
	}
	if _, err := store.Campaigns.CreateCampaign(t.Context(), c, ids, nil); err != nil {
		t.Fatal(err)
	}
	return c, ids
}

// The frozen recipients come back chunk by chunk, in order, 1,000 to a
// chunk; the campaign reads back whole; another workspace reads nothing.
func TestCampaignChunks(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	store, _ := dynamotest.NewStore(t)
	t.Cleanup(func() { dynamotest.CheckKeyLayout(t, store.Table.Name) })
	created := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	acme, err := store.Workspaces.CreateWorkspace(ctx, "Acme")
	if err != nil {
		t.Fatal(err)
	}
	beta, err := store.Workspaces.CreateWorkspace(ctx, "Beta")
	if err != nil {
		t.Fatal(err)
	}
	c, ids := newDraft(t, store, acme.ID, 2500, created)

	got, err := store.Campaigns.GetCampaign(ctx, acme.ID, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != c.ID || got.HTML != c.HTML || got.Sender.Email != c.Sender.Email || got.Chunks != 3 ||
		got.RecipientCount != 2500 || !got.CreatedAt.Equal(created) || got.ContentHash != c.ContentHash || got.Status != campaign.StatusPendingApproval {
		t.Errorf("read back %+v", got)
	}
	var all []string
	for n := range 3 {
		part, err := store.Campaigns.ReadChunk(ctx, acme.ID, c.ID, n)
		if err != nil {
			t.Fatal(err)
		}
		if want := min(1000, 2500-n*1000); len(part) != want {
			t.Errorf("chunk %d holds %d ids, want %d", n, len(part), want)
		}
		all = append(all, part...)
	}
	if !slices.Equal(all, ids) {
		t.Error("the chunks do not hold the frozen ids in order")
	}
	if _, err := store.Campaigns.ReadChunk(ctx, acme.ID, c.ID, 3); !errors.Is(err, campaign.ErrNotFound) {
		t.Errorf("chunk past the end: %v", err)
	}
	if _, err := store.Campaigns.GetCampaign(ctx, beta.ID, c.ID); !errors.Is(err, campaign.ErrNotFound) {
		t.Errorf("another workspace reads the campaign: %v", err)
	}
	if _, err := store.Campaigns.ReadChunk(ctx, beta.ID, c.ID, 0); !errors.Is(err, campaign.ErrNotFound) {
		t.Errorf("another workspace reads the recipients: %v", err)
	}
}

// A transition holds only from the statuses given; started_at is set
// once, so a resumed send keeps its email ids; a pause records its reason
// and resuming clears it.
func TestCampaignTransitions(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	store, _ := dynamotest.NewStore(t)
	c, _ := newDraft(t, store, "ws", 1, time.Now())
	t0 := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)

	cur, err := store.Campaigns.TransitionCampaign(ctx, "ws", c.ID, []campaign.Status{campaign.StatusScheduled}, campaign.StatusSending, t0, "")
	if !errors.Is(err, campaign.ErrConflict) || cur.Status != campaign.StatusPendingApproval {
		t.Errorf("from a status it is not in: %v, %q", err, cur.Status)
	}
	if _, err := store.Campaigns.TransitionCampaign(ctx, "ws", uuid.NewString(), campaign.Cancellable, campaign.StatusCancelled, t0, ""); !errors.Is(err, campaign.ErrNotFound) {
		t.Errorf("an absent campaign: %v", err)
	}

	approved, err := store.Campaigns.ApproveCampaign(ctx, "ws", c.ID, c.ContentHash, "arn:aws:iam::1:user/ann", t0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if approved.Status != campaign.StatusSending || !approved.StartedAt.Equal(t0) || !approved.Approved() || approved.ApprovedBy != "arn:aws:iam::1:user/ann" {
		t.Errorf("approved now: %+v", approved)
	}
	paused, err := store.Campaigns.TransitionCampaign(ctx, "ws", c.ID, []campaign.Status{campaign.StatusSending}, campaign.StatusPaused, t0.Add(time.Minute), "bounce rate 4.2%")
	if err != nil || paused.PauseReason != "bounce rate 4.2%" {
		t.Errorf("paused: %+v, %v", paused, err)
	}
	resumed, err := store.Campaigns.TransitionCampaign(ctx, "ws", c.ID, []campaign.Status{campaign.StatusPaused}, campaign.StatusSending, t0.Add(time.Hour), "")
	if err != nil || !resumed.StartedAt.Equal(t0) || resumed.PauseReason != "" {
		t.Errorf("resumed: started %v, reason %q, %v; want the first start kept and no reason", resumed.StartedAt, resumed.PauseReason, err)
	}
	cancelled, err := store.Campaigns.TransitionCampaign(ctx, "ws", c.ID, campaign.Cancellable, campaign.StatusCancelled, t0.Add(2*time.Hour), "")
	if err != nil || cancelled.CancelledAt == nil || !cancelled.CancelledAt.Equal(t0.Add(2*time.Hour)) {
		t.Errorf("cancelled: %+v, %v", cancelled, err)
	}
	if _, err := store.Campaigns.TransitionCampaign(ctx, "ws", c.ID, campaign.Cancellable, campaign.StatusCancelled, t0, ""); !errors.Is(err, campaign.ErrConflict) {
		t.Errorf("cancelled twice: %v", err)
	}
}

// An approval binds the content hash: an edit voids it and returns the
// campaign to pending_approval; an approval of stale content is refused.
func TestCampaignApproveEdit(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	store, _ := dynamotest.NewStore(t)
	c, _ := newDraft(t, store, "ws", 1, time.Now())
	t0 := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	at := t0.Add(24 * time.Hour)

	scheduled, err := store.Campaigns.ApproveCampaign(ctx, "ws", c.ID, c.ContentHash, "ann", t0, &at)
	if err != nil || scheduled.Status != campaign.StatusScheduled || !scheduled.ScheduledAt.Equal(at) || scheduled.StartedAt != nil {
		t.Fatalf("scheduled: %+v, %v", scheduled, err)
	}
	hash := campaign.ContentHash("Hello again", "<p>Hi</p>", c.Sender)
	edited, err := store.Campaigns.EditCampaign(ctx, "ws", c.ID, "Hello again", "<p>Hi</p>", hash)
	if err != nil {
		t.Fatal(err)
	}
	if edited.Status != campaign.StatusPendingApproval || edited.Approved() || edited.ApprovedAt != nil || edited.ScheduledAt != nil || edited.Subject != "Hello again" || edited.HTML != "<p>Hi</p>" {
		t.Errorf("edited: %+v", edited)
	}
	if _, err := store.Campaigns.ApproveCampaign(ctx, "ws", c.ID, c.ContentHash, "ann", t0, nil); !errors.Is(err, campaign.ErrConflict) {
		t.Errorf("approval of the content before the edit: %v", err)
	}
	if _, err := store.Campaigns.ApproveCampaign(ctx, "ws", c.ID, hash, "ann", t0, nil); err != nil {
		t.Errorf("approval of the edited content: %v", err)
	}
	if _, err := store.Campaigns.EditCampaign(ctx, "ws", c.ID, "x", "<p>x</p>", "h"); !errors.Is(err, campaign.ErrConflict) {
		t.Errorf("edit of a sending campaign: %v", err)
	}
	if got, err := store.Campaigns.GetCampaign(ctx, "ws", c.ID); err != nil || got.HTML != "<p>Hi</p>" || got.ContentHash != hash {
		t.Errorf("after the refused edit: html %q, hash %q, %v; want the edited content", got.HTML, got.ContentHash, err)
	}
	if _, err := store.Campaigns.EditCampaign(ctx, "ws", uuid.NewString(), "x", "<p>x</p>", "h"); !errors.Is(err, campaign.ErrNotFound) {
		t.Errorf("edit of an absent campaign: %v", err)
	}
}

// A newsletter's html is kept beside the campaign's record, so the updates
// a sending campaign makes (its counts, after each group of recipients)
// are billed on a record under 1 KB whatever the html's size.
func TestCampaignHTMLBesideTheRecord(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	store, rec := dynamotest.NewStore(t)
	c, _ := newDraft(t, store, "ws", 1, time.Now())
	html := "<p>" + strings.Repeat("News of the month. ", 100_000/19) + "</p>"
	hash := campaign.ContentHash("Big", html, c.Sender)
	if _, err := store.Campaigns.EditCampaign(ctx, "ws", c.ID, "Big", html, hash); err != nil {
		t.Fatal(err)
	}
	got, err := store.Campaigns.GetCampaign(ctx, "ws", c.ID)
	if err != nil || got.HTML != html || got.Subject != "Big" || got.ContentHash != hash {
		t.Fatalf("read back: subject %q, %d bytes of html, %v", got.Subject, len(got.HTML), err)
	}
	if _, err := store.Campaigns.ApproveCampaign(ctx, "ws", c.ID, hash, "ann", time.Now(), nil); err != nil {
		t.Fatal(err)
	}
	rec.Reset()
	if _, err := store.Campaigns.TransitionCampaign(ctx, "ws", c.ID, []campaign.Status{campaign.StatusSending}, campaign.StatusPaused, time.Now(), "bounce rate"); err != nil {
		t.Fatal(err)
	}
	if _, write := rec.Units(); write != 1 {
		t.Errorf("an update of the sending campaign's record took %v write units, want 1", write)
	}
}

// The list is newest first, filters by status, pages, and leaves the
// html out.
func TestListCampaigns(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	store, _ := dynamotest.NewStore(t)
	var ids []string
	for range 3 {
		c, _ := newDraft(t, store, "ws", 1, time.Now())
		ids = append(ids, c.ID)
	}
	if _, err := store.Campaigns.TransitionCampaign(ctx, "ws", ids[1], campaign.Editable, campaign.StatusDiscarded, time.Now(), ""); err != nil {
		t.Fatal(err)
	}
	page, next, more, err := store.Campaigns.ListCampaigns(ctx, "ws", "", "", 2)
	if err != nil || len(page) != 2 || page[0].ID != ids[2] || page[1].ID != ids[1] || !more || next != ids[1] {
		t.Fatalf("first page: %v, %q, %v, %v", page, next, more, err)
	}
	if page[0].HTML != "" || page[0].Subject != "Hello" {
		t.Errorf("listed: html %q, subject %q; want no html", page[0].HTML, page[0].Subject)
	}
	rest, _, more, err := store.Campaigns.ListCampaigns(ctx, "ws", "", next, 2)
	if err != nil || len(rest) != 1 || rest[0].ID != ids[0] || more {
		t.Errorf("second page: %v, %v, %v", rest, more, err)
	}
	pending, _, _, err := store.Campaigns.ListCampaigns(ctx, "ws", campaign.StatusPendingApproval, "", 10)
	if err != nil || len(pending) != 2 || pending[0].ID != ids[2] || pending[1].ID != ids[0] {
		t.Errorf("pending: %v, %v", pending, err)
	}
}

// A draft with an Idempotency-Key held by another request stores nothing
// and answers with the record that holds it.
func TestCreateCampaignClaim(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	store, _ := dynamotest.NewStore(t)
	now := time.Now().UTC()
	claim := sending.IdempotencyRecord{Key: "live:k1", RequestHash: "h", StatusCode: 200, Body: []byte(`{}`), CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
	first, _ := newDraft(t, store, "ws", 0, now)
	first.ID = uuid.Must(uuid.NewV7()).String()
	if held, err := store.Campaigns.CreateCampaign(ctx, first, []string{uuid.NewString()}, &claim); err != nil || held != nil {
		t.Fatalf("first claim: %v, %v", held, err)
	}
	rec, err := store.Campaigns.GetIdempotency(ctx, "ws", "live:k1")
	if err != nil || rec == nil || rec.RequestHash != "h" {
		t.Errorf("the claim reads back as %+v, %v", rec, err)
	}
	second := first
	second.ID = uuid.Must(uuid.NewV7()).String()
	held, err := store.Campaigns.CreateCampaign(ctx, second, []string{uuid.NewString()}, &claim)
	if !errors.Is(err, sending.ErrIdempotencyTaken) || held == nil || held.RequestHash != "h" {
		t.Errorf("second claim: %v, %v", held, err)
	}
	if _, err := store.Campaigns.GetCampaign(ctx, "ws", second.ID); !errors.Is(err, campaign.ErrNotFound) {
		t.Errorf("the loser's campaign was stored: %v", err)
	}
	if _, err := store.Campaigns.ReadChunk(ctx, "ws", second.ID, 0); !errors.Is(err, campaign.ErrNotFound) {
		t.Errorf("the loser's recipients were left behind: %v", err)
	}
	for _, it := range dynamotest.Items(t, store.Table.Name) {
		if pk := it["pk"].(*ddbtypes.AttributeValueMemberS).Value; strings.Contains(pk, second.ID) {
			t.Errorf("the loser's %s item was left behind", it["sk"].(*ddbtypes.AttributeValueMemberS).Value)
		}
	}
}

// A record written before the html had an item of its own (the html on
// the record, no html item) still reads whole; the record alone reads
// without it.
func TestCampaignLegacyHTML(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	store, _ := dynamotest.NewStore(t)
	c, _ := newDraft(t, store, "ws", 1, time.Now())
	db, table := store.Table.DB, store.Table.Name
	s := func(v string) ddbtypes.AttributeValue { return &ddbtypes.AttributeValueMemberS{Value: v} }
	if _, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &table,
		Key: map[string]ddbtypes.AttributeValue{"pk": s("WS#ws#CAMPAIGNRCPT#" + c.ID), "sk": s("html")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: &table,
		Key:              map[string]ddbtypes.AttributeValue{"pk": s("WS#ws#CAMPAIGN"), "sk": s(c.ID)},
		UpdateExpression: aws.String("SET html = :h"), ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{":h": s("<p>Old</p>")},
	}); err != nil {
		t.Fatal(err)
	}
	if got, err := store.Campaigns.GetCampaign(ctx, "ws", c.ID); err != nil || got.HTML != "<p>Old</p>" {
		t.Errorf("a legacy record reads html %q, %v", got.HTML, err)
	}
	if got, err := store.Campaigns.GetCampaignRecord(ctx, "ws", c.ID); err != nil || got.HTML != "" || got.Subject != "Hello" {
		t.Errorf("the record alone: %+v, %v", got, err)
	}
}
