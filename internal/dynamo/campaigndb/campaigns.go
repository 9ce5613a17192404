package campaigndb

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sesame-mail/sesame/internal/campaign"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/schema"
	"github.com/sesame-mail/sesame/internal/dynamo/sendingdb"
	"github.com/sesame-mail/sesame/internal/dynamo/workspacedb"
	"github.com/sesame-mail/sesame/internal/sending"
)

// campaignItem is a campaign's record; its recipients are chunkItems and
// its html a contentItem beside them, so the updates of a sending
// campaign (its counts, a group of recipients at a time) are billed on the
// small record, not on a newsletter of up to 256 KB.
type campaignItem struct {
	PK      string `dynamodbav:"pk"`
	SK      string `dynamodbav:"sk"`
	ID      string `dynamodbav:"id"`
	Subject string `dynamodbav:"subject"`
	// LegacyHTML is the html of a record written before the html had an
	// item of its own; GetCampaign falls back on it.
	LegacyHTML     string                 `dynamodbav:"html,omitempty"`
	Sender         workspacedb.SenderItem `dynamodbav:"sender"`
	SegmentID      string                 `dynamodbav:"segment_id"`
	Status         string                 `dynamodbav:"status"`
	RecipientCount int                    `dynamodbav:"recipient_count"`
	SentCount      int                    `dynamodbav:"sent_count"`
	SkippedCount   int                    `dynamodbav:"skipped_count"`
	Chunks         int                    `dynamodbav:"chunks"`
	ContentHash    string                 `dynamodbav:"content_hash"`
	ApprovedHash   string                 `dynamodbav:"approved_hash,omitempty"`
	ApprovedBy     string                 `dynamodbav:"approved_by,omitempty"`
	PauseReason    string                 `dynamodbav:"pause_reason,omitempty"`
	CreatedAt      time.Time              `dynamodbav:"created_at"`
	ApprovedAt     *time.Time             `dynamodbav:"approved_at,omitempty"`
	ScheduledAt    *time.Time             `dynamodbav:"scheduled_at,omitempty"`
	StartedAt      *time.Time             `dynamodbav:"started_at,omitempty"`
	PausedAt       *time.Time             `dynamodbav:"paused_at,omitempty"`
	CompletedAt    *time.Time             `dynamodbav:"completed_at,omitempty"`
	CancelledAt    *time.Time             `dynamodbav:"cancelled_at,omitempty"`
	DiscardedAt    *time.Time             `dynamodbav:"discarded_at,omitempty"`
	// SuggestedBy marks an assistant's suggestion (campaign.Suggestion).
	SuggestedBy *suggestionItem `dynamodbav:"suggested_by,omitempty"`
}

type suggestionItem struct {
	GrantID     string `dynamodbav:"grant_id,omitempty"`
	ClientID    string `dynamodbav:"client_id,omitempty"`
	ClientName  string `dynamodbav:"client_name,omitempty"`
	ConnectedBy string `dynamodbav:"connected_by,omitempty"`
	KeyID       string `dynamodbav:"key_id,omitempty"`
}

func newCampaignItem(c campaign.Campaign) campaignItem {
	it := campaignItem{
		PK: dynamo.CampaignPK(c.WorkspaceID), SK: c.ID, ID: c.ID, Subject: c.Subject,
		Sender: workspacedb.SenderItem{
			ID: c.Sender.ID, WorkspaceID: c.WorkspaceID, Name: c.Sender.Name, Email: c.Sender.Email,
			ReplyTo: c.Sender.ReplyTo, CreatedAt: c.Sender.CreatedAt.UTC(),
		},
		SegmentID: c.SegmentID, Status: string(c.Status), RecipientCount: c.RecipientCount,
		SentCount: c.SentCount, SkippedCount: c.SkippedCount, Chunks: c.Chunks,
		ContentHash: c.ContentHash, ApprovedHash: c.ApprovedHash, ApprovedBy: c.ApprovedBy, PauseReason: c.PauseReason,
		CreatedAt: c.CreatedAt.UTC(), ApprovedAt: c.ApprovedAt, ScheduledAt: c.ScheduledAt, StartedAt: c.StartedAt,
		CompletedAt: c.CompletedAt, CancelledAt: c.CancelledAt, DiscardedAt: c.DiscardedAt,
	}
	if b := c.SuggestedBy; b != nil {
		it.SuggestedBy = &suggestionItem{GrantID: b.GrantID, ClientID: b.ClientID, ClientName: b.ClientName, ConnectedBy: b.ConnectedBy, KeyID: b.KeyID}
	}
	return it
}

// campaign is the record as a campaign.Campaign, without its html.
func (it campaignItem) campaign(workspaceID string) campaign.Campaign {
	c := campaign.Campaign{
		ID: it.ID, WorkspaceID: workspaceID, Subject: it.Subject, Sender: it.Sender.Sender(),
		SegmentID: it.SegmentID, Status: campaign.Status(it.Status), RecipientCount: it.RecipientCount,
		SentCount: it.SentCount, SkippedCount: it.SkippedCount, Chunks: it.Chunks,
		ContentHash: it.ContentHash, ApprovedHash: it.ApprovedHash, ApprovedBy: it.ApprovedBy, PauseReason: it.PauseReason,
		CreatedAt: it.CreatedAt, ApprovedAt: it.ApprovedAt, ScheduledAt: it.ScheduledAt, StartedAt: it.StartedAt,
		CompletedAt: it.CompletedAt, CancelledAt: it.CancelledAt, DiscardedAt: it.DiscardedAt,
	}
	if b := it.SuggestedBy; b != nil {
		c.SuggestedBy = &campaign.Suggestion{GrantID: b.GrantID, ClientID: b.ClientID, ClientName: b.ClientName, ConnectedBy: b.ConnectedBy, KeyID: b.KeyID}
	}
	return c
}

// CreateCampaign stores a new draft: its frozen recipients in chunks of
// campaign.ChunkSize ids (16 bytes each) and its html, then its record, so
// a visible campaign always has every part. With a claim the record and the
// Idempotency-Key are written in one transaction; a key already held
// answers sending.ErrIdempotencyTaken with its record, and the chunks
// written are deleted again.
func (s *Campaigns) CreateCampaign(ctx context.Context, c campaign.Campaign, recipients []string, claim *sending.IdempotencyRecord) (*sending.IdempotencyRecord, error) {
	if err := s.writeParts(ctx, c.WorkspaceID, c.ID, c.HTML, recipients); err != nil {
		return nil, err
	}
	c.Chunks = campaign.Chunks(len(recipients))
	record, err := s.PutOf(newCampaignItem(c), dynamo.ItemAbsent())
	if err != nil {
		return nil, err
	}
	if claim == nil {
		if err := s.Put(ctx, record); err != nil {
			return nil, fmt.Errorf("create campaign: %w", err)
		}
		return nil, nil
	}
	sends := &sendingdb.Sends{Table: s.Table}
	claimPut, err := sends.ClaimPut(c.WorkspaceID, *claim)
	if err != nil {
		return nil, err
	}
	held, err := sends.WriteClaimed(ctx, []ddbtypes.TransactWriteItem{{Put: claimPut}, {Put: record}}, true, "create campaign")
	if errors.Is(err, sending.ErrIdempotencyTaken) {
		s.deleteParts(context.WithoutCancel(ctx), c.WorkspaceID, c.ID, c.Chunks)
	}
	return held, err
}

// GetIdempotency reads the record of an Idempotency-Key (environment
// scoped, as the send path claims it); nil when the key is unused.
func (s *Campaigns) GetIdempotency(ctx context.Context, workspaceID, key_ string) (*sending.IdempotencyRecord, error) {
	var it sendingdb.IdempotencyItem
	found, err := s.GetItem(ctx, dynamo.Key(dynamo.IdempotencyPK(workspaceID, key_), key_), &it)
	if err != nil {
		return nil, fmt.Errorf("get idempotency key: %w", err)
	}
	if !found || it.ExpiresAt < s.Time().Unix() {
		return nil, nil
	}
	return it.Record(), nil
}

// GetCampaignRecord reads a campaign of the workspace without its html,
// one GetItem of the record (campaign.ErrNotFound when absent): what a
// status check or the API's view needs.
func (s *Campaigns) GetCampaignRecord(ctx context.Context, workspaceID, id string) (campaign.Campaign, error) {
	return dynamo.GetAs(ctx, s.Table, "campaign", dynamo.Key(dynamo.CampaignPK(workspaceID), id),
		func(it campaignItem) campaign.Campaign { return it.campaign(workspaceID) }, campaign.ErrNotFound)
}

// GetCampaign reads a campaign of the workspace with its html, record and
// content in one BatchGetItem (campaign.ErrNotFound when absent).
func (s *Campaigns) GetCampaign(ctx context.Context, workspaceID, id string) (campaign.Campaign, error) {
	items, err := s.BatchGet(ctx, []map[string]ddbtypes.AttributeValue{dynamo.Key(dynamo.CampaignPK(workspaceID), id), contentKey(workspaceID, id)})
	if err != nil {
		return campaign.Campaign{}, fmt.Errorf("get campaign: %w", err)
	}
	var c *campaign.Campaign
	html := ""
	for _, item := range items {
		var sk struct {
			SK string `dynamodbav:"sk"`
		}
		if err := attributevalue.UnmarshalMap(item, &sk); err != nil {
			return campaign.Campaign{}, err
		}
		if sk.SK == contentSK {
			var it contentItem
			if err := attributevalue.UnmarshalMap(item, &it); err != nil {
				return campaign.Campaign{}, err
			}
			html = it.HTML
			continue
		}
		var it campaignItem
		if err := attributevalue.UnmarshalMap(item, &it); err != nil {
			return campaign.Campaign{}, err
		}
		got := it.campaign(workspaceID)
		got.HTML = it.LegacyHTML
		c = &got
	}
	if c == nil {
		return campaign.Campaign{}, campaign.ErrNotFound
	}
	if html != "" || c.HTML == "" {
		c.HTML = html
	}
	return *c, nil
}

// ListCampaigns returns campaigns newest first (a reverse Query: ids are
// UUIDv7), without their html (the records do not hold it, so a Query of
// large newsletters reads little); status ("" for all) filters within the
// Query, under the list read budget.
func (s *Campaigns) ListCampaigns(ctx context.Context, workspaceID string, status campaign.Status, after string, limit int) ([]campaign.Campaign, string, bool, error) {
	b := expression.NewBuilder().WithKeyCondition(expression.Key(schema.AttrPK).Equal(expression.Value(dynamo.CampaignPK(workspaceID))))
	if status != "" {
		b = b.WithFilter(expression.Name("status").Equal(expression.Value(string(status))))
	}
	expr, err := b.Build()
	if err != nil {
		return nil, "", false, err
	}
	in := &dynamodb.QueryInput{
		TableName: &s.Name, ScanIndexForward: aws.Bool(false),
		KeyConditionExpression: expr.KeyCondition(), FilterExpression: expr.Filter(), ProjectionExpression: expr.Projection(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	}
	if after != "" {
		in.ExclusiveStartKey = dynamo.Key(dynamo.CampaignPK(workspaceID), after)
	}
	return dynamo.FilteredPage(ctx, s.Table, "campaigns", in, limit, schema.AttrSK,
		func(it campaignItem) campaign.Campaign { return it.campaign(workspaceID) })
}

// statusTimes is the timestamp attribute each status sets when a
// campaign enters it.
var statusTimes = map[campaign.Status]string{
	campaign.StatusScheduled: "scheduled_at",
	campaign.StatusPaused:    "paused_at",
	campaign.StatusSent:      "completed_at",
	campaign.StatusCancelled: "cancelled_at",
	campaign.StatusDiscarded: "discarded_at",
}

// TransitionCampaign moves a campaign from one of the statuses in from
// to to, at time at, in one conditional update, and returns it as
// changed. Entering sending sets started_at the first time only (the
// campaign's email ids are stamped with it, so a resumed send keeps
// them); entering paused records reason; leaving paused clears it. A
// campaign not in from is returned as it is with campaign.ErrConflict.
func (s *Campaigns) TransitionCampaign(ctx context.Context, workspaceID, id string, from []campaign.Status, to campaign.Status, at time.Time, reason string) (campaign.Campaign, error) {
	if len(from) == 0 {
		return campaign.Campaign{}, errors.New("transition campaign: no status to move from")
	}
	update := expression.Set(expression.Name("status"), expression.Value(string(to)))
	at = at.UTC()
	switch to {
	case campaign.StatusSending:
		update = update.Set(expression.Name("started_at"), expression.IfNotExists(expression.Name("started_at"), expression.Value(at)))
	default:
		if attr, ok := statusTimes[to]; ok {
			update = update.Set(expression.Name(attr), expression.Value(at))
		}
	}
	if to == campaign.StatusPaused && reason != "" {
		update = update.Set(expression.Name("pause_reason"), expression.Value(reason))
	} else {
		update = update.Remove(expression.Name("pause_reason"))
	}
	return s.changeCampaign(ctx, workspaceID, id, update, statusIn(from))
}

// ApproveCampaign records the owner's approval of a pending campaign
// whose content hash is still contentHash: approved_at, approved_by and
// the hash it binds, and the campaign moves to scheduled at scheduledAt,
// or to sending (started now) when scheduledAt is nil. Another status or
// hash is campaign.ErrConflict, with the campaign as it is.
func (s *Campaigns) ApproveCampaign(ctx context.Context, workspaceID, id, contentHash, by string, at time.Time, scheduledAt *time.Time) (campaign.Campaign, error) {
	at = at.UTC()
	update := expression.Set(expression.Name("approved_at"), expression.Value(at)).
		Set(expression.Name("approved_by"), expression.Value(by)).
		Set(expression.Name("approved_hash"), expression.Value(contentHash))
	if scheduledAt != nil {
		update = update.Set(expression.Name("status"), expression.Value(string(campaign.StatusScheduled))).
			Set(expression.Name("scheduled_at"), expression.Value(scheduledAt.UTC()))
	} else {
		update = update.Set(expression.Name("status"), expression.Value(string(campaign.StatusSending))).
			Set(expression.Name("started_at"), expression.IfNotExists(expression.Name("started_at"), expression.Value(at)))
	}
	cond := statusIn([]campaign.Status{campaign.StatusPendingApproval}).
		And(expression.Name("content_hash").Equal(expression.Value(contentHash)))
	return s.changeCampaign(ctx, workspaceID, id, update, cond)
}

// EditCampaign replaces the subject and html of a campaign that has not
// started (campaign.Editable) and returns it to pending_approval: the
// approval it had is void (approved_at, approved_by, approved_hash and
// scheduled_at are removed). The record and the html change in one
// transaction, so the content hash always matches the html.
func (s *Campaigns) EditCampaign(ctx context.Context, workspaceID, id, subject, html, contentHash string) (campaign.Campaign, error) {
	update := expression.Set(expression.Name("subject"), expression.Value(subject)).
		Set(expression.Name("content_hash"), expression.Value(contentHash)).
		Set(expression.Name("status"), expression.Value(string(campaign.StatusPendingApproval))).
		Remove(expression.Name("approved_at")).Remove(expression.Name("approved_by")).
		Remove(expression.Name("approved_hash")).Remove(expression.Name("scheduled_at"))
	u, err := s.UpdateOf(dynamo.Key(dynamo.CampaignPK(workspaceID), id), update, statusIn(campaign.Editable))
	if err != nil {
		return campaign.Campaign{}, err
	}
	content, err := s.PutOf(contentItem{PK: dynamo.CampaignRecipientsPK(workspaceID, id), SK: contentSK, HTML: html}, dynamo.NoCondition)
	if err != nil {
		return campaign.Campaign{}, err
	}
	failed, err := s.Transact(ctx, []ddbtypes.TransactWriteItem{{Update: u}, {Put: content}})
	if err != nil {
		return campaign.Campaign{}, fmt.Errorf("edit campaign: %w", err)
	}
	c, err := s.GetCampaign(ctx, workspaceID, id)
	if err != nil {
		return campaign.Campaign{}, err
	}
	if len(failed) > 0 {
		return c, campaign.ErrConflict // not editable: c is as it is
	}
	return c, nil
}

// statusIn is the condition that the campaign exists with a status in
// statuses (at least one).
func statusIn(statuses []campaign.Status) expression.ConditionBuilder {
	values := make([]expression.OperandBuilder, 0, len(statuses))
	for _, st := range statuses {
		values = append(values, expression.Value(string(st)))
	}
	in := expression.Name("status").In(values[0], values[1:]...)
	if len(values) == 1 {
		in = expression.Name("status").Equal(values[0])
	}
	return dynamo.ItemExists().And(in)
}

// changeCampaign applies update under cond and returns the campaign as
// changed; a failed condition is campaign.ErrNotFound for an absent
// campaign, else campaign.ErrConflict with the campaign as it is.
func (s *Campaigns) changeCampaign(ctx context.Context, workspaceID, id string, update expression.UpdateBuilder, cond expression.ConditionBuilder) (campaign.Campaign, error) {
	u, err := s.UpdateOf(dynamo.Key(dynamo.CampaignPK(workspaceID), id), update, cond)
	if err != nil {
		return campaign.Campaign{}, err
	}
	u.ReturnValuesOnConditionCheckFailure = ddbtypes.ReturnValuesOnConditionCheckFailureAllOld
	var it campaignItem
	err = s.Update(ctx, u, &it)
	var ccf *ddbtypes.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		if len(ccf.Item) == 0 {
			return campaign.Campaign{}, campaign.ErrNotFound
		}
		var it campaignItem
		if err := attributevalue.UnmarshalMap(ccf.Item, &it); err != nil {
			return campaign.Campaign{}, err
		}
		return it.campaign(workspaceID), campaign.ErrConflict
	}
	if err != nil {
		return campaign.Campaign{}, fmt.Errorf("update campaign: %w", err)
	}
	return it.campaign(workspaceID), nil
}
