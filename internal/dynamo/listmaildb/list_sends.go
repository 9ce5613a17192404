package listmaildb

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sesame-mail/sesame/internal/campaign"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/contactdb"
	"github.com/sesame-mail/sesame/internal/dynamo/emaildb"
	"github.com/sesame-mail/sesame/internal/dynamo/schema"
	"github.com/sesame-mail/sesame/internal/dynamo/sendingdb"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/status"
	"github.com/sesame-mail/sesame/internal/suppression"
)

// ListSends is the table's side of sending list mail, for campaigns and
// automations alike: each email's claim, the monthly usage and each
// workspace's hourly reputation counts; and for campaigns, the recipients
// as they are at send time, each chunk's progress with the campaign's
// counts and the due starts of scheduled campaigns. The send slots of
// each second are Pace's.
type ListSends struct{ *dynamo.Table }

// campaignRecordKey is the campaign record's key (Campaigns' layout),
// whose counts a progress commit adds to.
func campaignRecordKey(ws, id string) map[string]ddbtypes.AttributeValue {
	return dynamo.Key(dynamo.CampaignPK(ws), id)
}

// Recipients reads the contacts of ids (address, subscription, names and
// properties) and the do-not-send entries of their addresses: two
// BatchGetItems for up to 100 recipients.
func (s *ListSends) Recipients(ctx context.Context, workspaceID string, ids []string) ([]campaign.Recipient, error) {
	out := make([]campaign.Recipient, len(ids))
	byID := map[string]int{}
	var keys []map[string]ddbtypes.AttributeValue
	for i, id := range ids {
		out[i].ContactID = id
		byID[id] = i
		keys = append(keys, dynamo.Key(dynamo.ContactPK(workspaceID, id), id))
	}
	items, err := s.BatchGet(ctx, keys)
	if err != nil {
		return nil, fmt.Errorf("read recipients: %w", err)
	}
	byAddress := map[string][]int{}
	keys = nil
	for _, item := range items {
		var it contactdb.ContactItem
		if err := attributevalue.UnmarshalMap(item, &it); err != nil {
			return nil, err
		}
		i := byID[it.SK]
		// The whole item is read anyway (a read unit per 4 KB of it): its
		// names and properties, for the merge tags, cost nothing more.
		c := it.Contact(workspaceID)
		out[i].Email, out[i].Subscribed = c.Email, c.Subscribed
		out[i].FirstName, out[i].LastName, out[i].Properties = c.FirstName, c.LastName, c.Properties
		k := suppression.Key(it.Email)
		if len(byAddress[k]) == 0 {
			keys = append(keys, dynamo.SuppressionKeys(workspaceID, k, true)...)
		}
		byAddress[k] = append(byAddress[k], i)
	}
	items, err = s.BatchGet(ctx, keys)
	if err != nil {
		return nil, fmt.Errorf("read suppressions of recipients: %w", err)
	}
	for _, item := range items {
		for _, i := range byAddress[aws.ToString(dynamo.StringAttr(item, schema.AttrSK))] {
			out[i].Suppressed = true
		}
	}
	return out, nil
}

// ClaimEmail writes a campaign email unless its id exists.
func (s *ListSends) ClaimEmail(ctx context.Context, e email.Email) (bool, error) {
	err := s.PutItem(ctx, emaildb.NewEmailItem(e), dynamo.ItemAbsent())
	if dynamo.IsConditionFailed(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("claim campaign email: %w", err)
	}
	return true, nil
}

// ClaimedAt is when the email id was claimed; found is false when no claim
// holds it (released, or never claimed).
func (s *ListSends) ClaimedAt(ctx context.Context, workspaceID, id string) (at time.Time, found bool, err error) {
	it, found, err := (&emaildb.Emails{Table: s.Table}).EmailItem(ctx, workspaceID, id)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("read claimed email: %w", err)
	}
	return it.SentAt, found, nil
}

// ReleaseEmail deletes a claimed email SES did not take. A list email
// keeps no content item (it is rendered again when viewed): the email
// alone goes.
func (s *ListSends) ReleaseEmail(ctx context.Context, workspaceID, id string) error {
	_, err := s.DB.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &s.Name, Key: dynamo.Key(dynamo.EmailPK(workspaceID, id), id)})
	if err != nil {
		return fmt.Errorf("release email: %w", err)
	}
	return nil
}

// FailEmail marks a claimed email SES refused.
func (s *ListSends) FailEmail(ctx context.Context, workspaceID, id, reason string) error {
	return (&sendingdb.Sends{Table: s.Table}).FailEmail(ctx, workspaceID, id, reason)
}

// progressItem is which recipients of one chunk are done and counted.
type progressItem struct {
	PK      string `dynamodbav:"pk"`
	SK      string `dynamodbav:"sk"`
	Version int    `dynamodbav:"version"`
	Done    []byte `dynamodbav:"done,omitempty"`
}

func progressKey(ws, campaignID string, chunk int) (string, string) {
	return dynamo.WSSubPK(ws, dynamo.KindCampaignProgress, campaignID), fmt.Sprintf("%06d", chunk)
}

// Progress reads a chunk's progress; none yet is version 0.
func (s *ListSends) Progress(ctx context.Context, workspaceID, campaignID string, chunk int) (campaign.Progress, error) {
	pk, sk := progressKey(workspaceID, campaignID, chunk)
	var it progressItem
	if _, err := s.GetItem(ctx, dynamo.Key(pk, sk), &it); err != nil {
		return campaign.Progress{}, fmt.Errorf("read chunk progress: %w", err)
	}
	return campaign.Progress{Version: it.Version, Done: it.Done}, nil
}

// CommitProgress writes a chunk's progress over the version read and adds
// the counts to the campaign record, in one transaction.
func (s *ListSends) CommitProgress(ctx context.Context, workspaceID, campaignID string, chunk int, prev, next campaign.Progress, sent, skipped int) error {
	pk, sk := progressKey(workspaceID, campaignID, chunk)
	cond := dynamo.ItemAbsent()
	if prev.Version > 0 {
		cond = expression.Name("version").Equal(expression.Value(prev.Version))
	}
	put, err := s.PutOf(progressItem{PK: pk, SK: sk, Version: next.Version, Done: next.Done}, cond)
	if err != nil {
		return err
	}
	counts := expression.Add(expression.Name("sent_count"), expression.Value(sent)).
		Add(expression.Name("skipped_count"), expression.Value(skipped))
	upd, err := s.UpdateOf(campaignRecordKey(workspaceID, campaignID), counts, dynamo.ItemExists())
	if err != nil {
		return err
	}
	err = s.TransactGuarded(ctx, []ddbtypes.TransactWriteItem{{Put: put}, {Update: upd}}, campaign.ErrProgressMoved)
	if errors.Is(err, campaign.ErrProgressMoved) {
		return err
	}
	if err != nil {
		return fmt.Errorf("commit chunk progress: %w", err)
	}
	return nil
}

// MonthlyUsage reads the month's live sends, the allowance's counter.
func (s *ListSends) MonthlyUsage(ctx context.Context, workspaceID, month string) (int, error) {
	return (&sendingdb.Sends{Table: s.Table}).MonthlyUsage(ctx, workspaceID, month)
}

// CountSent adds n campaign or automation sends to the hour of at (the
// pipeline adds their bounces and complaints with Statuses.Count).
func (s *ListSends) CountSent(ctx context.Context, workspaceID string, at time.Time, n int) error {
	update := expression.Add(expression.Name("sent"), expression.Value(n)).
		Set(expression.Name(schema.AttrExpiresAt), expression.Value(dynamo.ReputationExpiry(at)))
	if err := s.UpdateItem(ctx, dynamo.Key(dynamo.ReputationPK(workspaceID), status.ReputationHour(at)), update, dynamo.NoCondition, nil); err != nil {
		return fmt.Errorf("count reputation: %w", err)
	}
	return nil
}

type reputationItem struct {
	Sent       int `dynamodbav:"sent"`
	Bounced    int `dynamodbav:"bounced"`
	Complained int `dynamodbav:"complained"`
}

// Tally sums the workspace's hourly counts from the hour of from to the
// hour of to: one Query of at most a window's hours.
func (s *ListSends) Tally(ctx context.Context, workspaceID string, from, to time.Time) (campaign.Tally, error) {
	cond := expression.Key(schema.AttrPK).Equal(expression.Value(dynamo.ReputationPK(workspaceID))).
		And(expression.Key(schema.AttrSK).Between(expression.Value(status.ReputationHour(from)), expression.Value(status.ReputationHour(to))))
	expr, err := expression.NewBuilder().WithKeyCondition(cond).Build()
	if err != nil {
		return campaign.Tally{}, err
	}
	items, err := dynamo.QueryAll[reputationItem](ctx, s.DB, &dynamodb.QueryInput{
		TableName: &s.Name, KeyConditionExpression: expr.KeyCondition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	})
	if err != nil {
		return campaign.Tally{}, fmt.Errorf("read reputation: %w", err)
	}
	var t campaign.Tally
	for _, it := range items {
		t.Sent, t.Bounced, t.Complained = t.Sent+it.Sent, t.Bounced+it.Bounced, t.Complained+it.Complained
	}
	return t, nil
}

// dueSK orders due starts by time: the time, then workspace and campaign.
func dueSK(d campaign.DueStart) string {
	return d.At.UTC().Format(time.RFC3339) + "#" + d.WorkspaceID + "#" + d.CampaignID
}

type dueItem struct {
	PK string `dynamodbav:"pk"`
	SK string `dynamodbav:"sk"`
}

// PutDue records a scheduled start; again is harmless.
func (s *ListSends) PutDue(ctx context.Context, d campaign.DueStart) error {
	if err := s.PutItem(ctx, dueItem{PK: dynamo.DuePK, SK: dueSK(d)}, dynamo.NoCondition); err != nil {
		return fmt.Errorf("put due start: %w", err)
	}
	return nil
}

// DueBy lists the starts due at or before t: one Query of the due list.
func (s *ListSends) DueBy(ctx context.Context, t time.Time) ([]campaign.DueStart, error) {
	cond := expression.Key(schema.AttrPK).Equal(expression.Value(dynamo.DuePK)).
		And(expression.Key(schema.AttrSK).LessThanEqual(expression.Value(t.UTC().Format(time.RFC3339) + "#~")))
	expr, err := expression.NewBuilder().WithKeyCondition(cond).Build()
	if err != nil {
		return nil, err
	}
	items, err := dynamo.QueryAll[dueItem](ctx, s.DB, &dynamodb.QueryInput{
		TableName: &s.Name, KeyConditionExpression: expr.KeyCondition(), ConsistentRead: aws.Bool(true),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	})
	if err != nil {
		return nil, fmt.Errorf("read due starts: %w", err)
	}
	out := make([]campaign.DueStart, 0, len(items))
	for _, it := range items {
		parts := strings.SplitN(it.SK, "#", 3)
		at, err := time.Parse(time.RFC3339, parts[0])
		if err != nil || len(parts) != 3 {
			return nil, fmt.Errorf("due start %q is malformed", it.SK)
		}
		out = append(out, campaign.DueStart{At: at, WorkspaceID: parts[1], CampaignID: parts[2]})
	}
	return out, nil
}

// ClearDue deletes a due start.
func (s *ListSends) ClearDue(ctx context.Context, d campaign.DueStart) error {
	if _, err := s.DB.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &s.Name, Key: dynamo.Key(dynamo.DuePK, dueSK(d))}); err != nil {
		return fmt.Errorf("clear due start: %w", err)
	}
	return nil
}
