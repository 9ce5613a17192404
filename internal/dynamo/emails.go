package dynamo

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/dynamo/schema"
	"github.com/sesame-mail/sesame/internal/email"
)

type emailItem struct {
	PK           string     `dynamodbav:"pk"`
	SK           string     `dynamodbav:"sk"`
	ID           string     `dynamodbav:"id"`
	WorkspaceID  string     `dynamodbav:"workspace_id"`
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
}

func newEmailItem(e email.Email) emailItem {
	return emailItem{
		PK: emailPK(e.WorkspaceID), SK: e.ID,
		ID: e.ID, WorkspaceID: e.WorkspaceID, To: e.To, Subject: e.Subject,
		Status: string(e.Status), Type: string(e.Type), Environment: string(e.Environment),
		SentAt: e.SentAt.UTC(), DeliveredAt: e.DeliveredAt, OpenedAt: e.OpenedAt,
		ClickedAt: e.ClickedAt, BouncedAt: e.BouncedAt, ComplainedAt: e.ComplainedAt,
		TrackingMode: string(e.TrackingMode), Error: e.Error,
		CampaignID: e.Source.CampaignID, AutomationID: e.Source.AutomationID, RunID: e.Source.RunID,
		Step: e.Source.Step, ContactID: e.Source.ContactID,
		Tags: tagKeys(e.Tags), ScheduledAt: e.ScheduledAt,
	}
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

func (it emailItem) email() email.Email {
	return email.Email{
		ID: it.ID, WorkspaceID: it.WorkspaceID, To: it.To, Subject: it.Subject,
		Status: email.Status(it.Status), Type: email.Type(it.Type),
		Environment: apikey.Environment(it.Environment), SentAt: it.SentAt,
		DeliveredAt: it.DeliveredAt, OpenedAt: it.OpenedAt, ClickedAt: it.ClickedAt,
		BouncedAt: it.BouncedAt, ComplainedAt: it.ComplainedAt,
		TrackingMode: email.TrackingMode(it.TrackingMode), Error: it.Error, OptOutClicks: it.OptOutClicks,
		LastEventID: it.LastEventID, LastEventMetrics: it.LastMetrics,
		Source: email.Source{CampaignID: it.CampaignID, AutomationID: it.AutomationID, RunID: it.RunID, Step: it.Step, ContactID: it.ContactID},
		Tags:   tagsOf(it.Tags), ScheduledAt: it.ScheduledAt,
	}
}

func tagsOf(keys []string) []email.Tag {
	if len(keys) == 0 {
		return nil
	}
	return email.TagsOfKeys(keys)
}

// PutEmail stores a new email; an existing id is an error.
func (s *Emails) PutEmail(ctx context.Context, e email.Email) error {
	if err := s.putItem(ctx, newEmailItem(e), itemAbsent()); err != nil {
		return fmt.Errorf("put email: %w", err)
	}
	return nil
}

// GetEmail reads one email of the workspace.
func (s *Emails) GetEmail(ctx context.Context, workspaceID, id string) (email.Email, error) {
	// Strongly consistent: the status pipeline must see an email the send
	// path has just written, or it would drop the email's first event.
	return getAs(ctx, s.Table, "email", key(emailPK(workspaceID), id), emailItem.email, email.ErrNotFound)
}

// ListEmails returns emails newest first through a reverse Query of the
// workspace's emails; status, type, environment and a tag filter within it.
func (s *Emails) ListEmails(ctx context.Context, workspaceID string, f email.Filter, after string, limit int) ([]email.Email, string, bool, error) {
	b := expression.NewBuilder().WithKeyCondition(expression.Key(schema.AttrPK).Equal(expression.Value(emailPK(workspaceID))))
	var filters []expression.ConditionBuilder
	for name, v := range map[string]string{"status": string(f.Status), "type": string(f.Type), "environment": string(f.Environment)} {
		if v != "" {
			filters = append(filters, expression.Name(name).Equal(expression.Value(v)))
		}
	}
	if f.Tag.Name != "" {
		filters = append(filters, expression.Contains(expression.Name("tags"), f.Tag.Key()))
	}
	switch len(filters) {
	case 0:
	case 1:
		b = b.WithFilter(filters[0])
	default:
		b = b.WithFilter(expression.And(filters[0], filters[1], filters[2:]...))
	}
	expr, err := b.Build()
	if err != nil {
		return nil, "", false, err
	}
	in := &dynamodb.QueryInput{
		TableName: &s.Name, ScanIndexForward: aws.Bool(false),
		KeyConditionExpression: expr.KeyCondition(), FilterExpression: expr.Filter(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	}
	if after != "" {
		in.ExclusiveStartKey = key(emailPK(workspaceID), after)
	}
	return filteredPage(ctx, s.Table, "emails", in, limit, schema.AttrSK, emailItem.email)
}

// emailStatusUpdate moves an email to status; cond guards the move.
func (s *Table) emailStatusUpdate(workspaceID, id string, status email.Status, reason string, cond expression.ConditionBuilder) (*ddbtypes.Update, error) {
	update := expression.Set(expression.Name("status"), expression.Value(string(status)))
	if reason != "" {
		update = update.Set(expression.Name("error"), expression.Value(reason))
	}
	return s.updateOf(key(emailPK(workspaceID), id), update, cond)
}
