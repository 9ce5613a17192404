package emaildb

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/email"
)

type EmailItem struct {
	PK string `dynamodbav:"pk"`
	SK string `dynamodbav:"sk"` // the email's id
	// ID and WorkspaceID are only on items written before the keys were
	// read for them (86 bytes an email, stored for as long as it is kept).
	ID           string     `dynamodbav:"id,omitempty"`
	WorkspaceID  string     `dynamodbav:"workspace_id,omitempty"`
	To           string     `dynamodbav:"to"`
	Subject      string     `dynamodbav:"subject"`
	Status       string     `dynamodbav:"status"`
	Type         string     `dynamodbav:"type"`
	Environment  string     `dynamodbav:"environment"`
	SentAt       time.Time  `dynamodbav:"sent_at"`
	DeliveredAt  *time.Time `dynamodbav:"delivered_at,omitempty"`
	OpenedAt     *time.Time `dynamodbav:"opened_at,omitempty"`
	ClickedAt    *time.Time `dynamodbav:"clicked_at,omitempty"`
	BouncedAt    *time.Time `dynamodbav:"bounced_at,omitempty"`
	ComplainedAt *time.Time `dynamodbav:"complained_at,omitempty"`
	TrackingMode string     `dynamodbav:"open_tracking_mode,omitempty"`
	Error        string     `dynamodbav:"error,omitempty"`
	OptOutClicks int        `dynamodbav:"opt_out_clicks,omitempty"`
	LastEventID  string     `dynamodbav:"last_event_id,omitempty"`
	LastMetrics  []string   `dynamodbav:"last_event_metrics,omitempty"`
	// Tags are "name:value" keys in a string set: the tag filter is a
	// contains() on it.
	Tags        []string   `dynamodbav:"tags,stringset,omitempty"`
	ScheduledAt *time.Time `dynamodbav:"scheduled_at,omitempty"`
	// What a campaign or automation email was rendered from.
	CampaignID   string `dynamodbav:"campaign_id,omitempty"`
	AutomationID string `dynamodbav:"automation_id,omitempty"`
	RunID        string `dynamodbav:"run_id,omitempty"`
	Step         int    `dynamodbav:"step,omitempty"`
	ContactID    string `dynamodbav:"contact_id,omitempty"`
	// The OAuth connection that sent it; absent for a key's send, so
	// those rows cost nothing more.
	GrantID    string `dynamodbav:"grant_id,omitempty"`
	ClientID   string `dynamodbav:"client_id,omitempty"`
	ClientName string `dynamodbav:"client_name,omitempty"`
	// The first tracked click, when it rode on the email's own update
	// (FirstClickUpdate); later clicks are ClickItems.
	FirstClickURL       string     `dynamodbav:"fc_url,omitempty"`
	FirstClickUserAgent string     `dynamodbav:"fc_ua,omitempty"`
	FirstClickAt        *time.Time `dynamodbav:"fc_at,omitempty"`
}

func (it EmailItem) SortKey() string { return it.SK }

func NewEmailItem(e email.Email) EmailItem {
	it := EmailItem{
		PK: dynamo.EmailPK(e.WorkspaceID, e.ID), SK: e.ID,
		To: e.To, Subject: e.Subject,
		Status: string(e.Status), Type: string(e.Type), Environment: string(e.Environment),
		SentAt: e.SentAt.UTC(), DeliveredAt: e.DeliveredAt, OpenedAt: e.OpenedAt,
		ClickedAt: e.ClickedAt, BouncedAt: e.BouncedAt, ComplainedAt: e.ComplainedAt,
		TrackingMode: string(e.TrackingMode), Error: e.Error,
		CampaignID: e.Source.CampaignID, AutomationID: e.Source.AutomationID, RunID: e.Source.RunID,
		Step: e.Source.Step, ContactID: e.Source.ContactID,
		Tags: tagKeys(e.Tags), ScheduledAt: e.ScheduledAt,
	}
	if c := e.Connection; c != nil {
		it.GrantID, it.ClientID, it.ClientName = c.GrantID, c.ClientID, c.ClientName
	}
	if c := e.FirstClick; c != nil {
		at := c.ClickedAt.UTC()
		it.FirstClickURL, it.FirstClickUserAgent, it.FirstClickAt = c.URL, c.UserAgent, &at
	}
	return it
}

func tagKeys(tags []email.Tag) []string {
	if len(tags) == 0 {
		return nil
	}
	keys := make([]string, len(tags))
	for i, t := range tags {
		keys[i] = t.Key()
	}
	return keys
}

func (it EmailItem) email() email.Email {
	ws, _, _ := dynamo.WorkspaceOf(it.PK) // the sharded and the legacy key alike
	e := email.Email{
		ID: it.SK, WorkspaceID: ws, To: it.To, Subject: it.Subject,
		Status: email.Status(it.Status), Type: email.Type(it.Type),
		Environment: apikey.Environment(it.Environment), SentAt: it.SentAt,
		DeliveredAt: it.DeliveredAt, OpenedAt: it.OpenedAt, ClickedAt: it.ClickedAt,
		BouncedAt: it.BouncedAt, ComplainedAt: it.ComplainedAt,
		TrackingMode: email.TrackingMode(it.TrackingMode), Error: it.Error, OptOutClicks: it.OptOutClicks,
		LastEventID: it.LastEventID, LastEventMetrics: it.LastMetrics,
		Source: email.Source{CampaignID: it.CampaignID, AutomationID: it.AutomationID, RunID: it.RunID, Step: it.Step, ContactID: it.ContactID},
		Tags:   tagsOf(it.Tags), ScheduledAt: it.ScheduledAt,
	}
	if it.GrantID != "" {
		e.Connection = &email.Connection{GrantID: it.GrantID, ClientID: it.ClientID, ClientName: it.ClientName}
	}
	if it.FirstClickAt != nil {
		e.FirstClick = &email.Click{URL: it.FirstClickURL, UserAgent: it.FirstClickUserAgent, ClickedAt: *it.FirstClickAt}
	}
	return e
}

func tagsOf(keys []string) []email.Tag {
	if len(keys) == 0 {
		return nil
	}
	return email.TagsOfKeys(keys)
}

// PutEmail stores a new email; an existing id is an error.
func (s *Emails) PutEmail(ctx context.Context, e email.Email) error {
	if err := s.PutItem(ctx, NewEmailItem(e), dynamo.ItemAbsent()); err != nil {
		return fmt.Errorf("put email: %w", err)
	}
	return nil
}

// GetEmail reads one email of the workspace.
func (s *Emails) GetEmail(ctx context.Context, workspaceID, id string) (email.Email, error) {
	// Strongly consistent: the status pipeline must see an email the send
	// path has just written, or it would drop the email's first event.
	it, found, err := s.EmailItem(ctx, workspaceID, id)
	if err != nil {
		return email.Email{}, fmt.Errorf("get email: %w", err)
	}
	if !found {
		return email.Email{}, email.ErrNotFound
	}
	return it.email(), nil
}

// EmailItem reads email id at its shard, and on a miss where the layout
// before the shards kept it: one read for every email sent since.
func (s *Emails) EmailItem(ctx context.Context, workspaceID, id string) (EmailItem, bool, error) {
	var it EmailItem
	found, err := s.GetItem(ctx, dynamo.Key(dynamo.EmailPK(workspaceID, id), id), &it)
	if err != nil || found {
		return it, found, err
	}
	found, err = s.GetItem(ctx, dynamo.Key(dynamo.LegacyEmailPK(workspaceID), id), &it)
	return it, found, err
}

// UpdateEmail applies update to email id under cond (which fails on an
// absent item), at its shard and, when no item is there, where the
// layout before the shards kept it. A failed condition comes back as
// DynamoDB's exception (dynamo.IsConditionFailed).
func (s *Emails) UpdateEmail(ctx context.Context, workspaceID, id string, update expression.UpdateBuilder, cond expression.ConditionBuilder) error {
	u, err := s.UpdateOf(dynamo.Key(dynamo.EmailPK(workspaceID, id), id), update, cond)
	if err != nil {
		return err
	}
	u.ReturnValuesOnConditionCheckFailure = ddbtypes.ReturnValuesOnConditionCheckFailureAllOld
	err = s.Update(ctx, u, nil)
	var ccf *ddbtypes.ConditionalCheckFailedException
	if !errors.As(err, &ccf) || len(ccf.Item) > 0 {
		return err
	}
	u.Key = dynamo.Key(dynamo.LegacyEmailPK(workspaceID), id)
	return s.Update(ctx, u, nil)
}

// EmailStatusUpdate moves email id, at k, to status; cond guards the move.
func (s *Emails) EmailStatusUpdate(k map[string]ddbtypes.AttributeValue, status email.Status, reason string, cond expression.ConditionBuilder) (*ddbtypes.Update, error) {
	update := expression.Set(expression.Name("status"), expression.Value(string(status)))
	if reason != "" {
		update = update.Set(expression.Name("error"), expression.Value(reason))
	}
	return s.UpdateOf(k, update, cond)
}

// ListEmails returns emails newest first: a reverse Query of every shard
// (and of the layout before the shards), merged by id (UUIDv7, so by
// sending time); status, type and environment filter within the Queries,
// under listReadBudget items examined.
func (s *Emails) ListEmails(ctx context.Context, workspaceID string, f email.Filter, after string, limit int) ([]email.Email, string, bool, error) {
	var filters []expression.ConditionBuilder
	for _, c := range []struct{ name, v string }{{"status", string(f.Status)}, {"type", string(f.Type)}, {"environment", string(f.Environment)}} {
		if c.v != "" {
			filters = append(filters, expression.Name(c.name).Equal(expression.Value(c.v)))
		}
	}
	if f.Tag.Name != "" {
		filters = append(filters, expression.Contains(expression.Name("tags"), f.Tag.Key()))
	}
	items, next, more, err := dynamo.MergedPage[EmailItem](ctx, s.Table, dynamo.EmailShardPKs(workspaceID), after, limit, filters...)
	if err != nil {
		return nil, "", false, fmt.Errorf("query emails: %w", err)
	}
	out := make([]email.Email, 0, len(items))
	for _, it := range items {
		out = append(out, it.email())
	}
	return out, next, more, nil
}
