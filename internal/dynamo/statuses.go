package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/status"
	"github.com/sesame-mail/sesame/internal/suppression"
)

// dedupeTTL outlives any SQS redelivery of an SES event.
const dedupeTTL = 14 * 24 * time.Hour

// dedupeItem marks an SES event the feed does not show as applied.
type dedupeItem struct {
	PK        string `dynamodbav:"pk"`
	SK        string `dynamodbav:"sk"`
	ExpiresAt int64  `dynamodbav:"expires_at"`
}

// Apply writes one SES event's change without a transaction (which would
// double the write cost): first what is idempotent (the email, guarded by
// its status; the click record and suppression, at fixed keys), then the
// dedupe record (the feed item for feed events), conditionally, so a
// duplicate stops there; only then the counters, which must not count a
// duplicate. A fault before the dedupe record is redone by the redelivered
// event (which finds the email already changed by itself and still owing
// its counts); counter writes are retried here, and only if they keep
// failing are those counts lost: an undercount, never an overcount.
func (s *Statuses) Apply(ctx context.Context, c status.Change) error {
	ws := c.WorkspaceID
	if c.Email != nil {
		u, err := s.emailEventUpdate(c)
		if err != nil {
			return err
		}
		if err := s.update(ctx, u, nil); isConditionFailed(err) {
			return status.ErrStale
		} else if err != nil {
			return fmt.Errorf("apply SES event to email: %w", err)
		}
	}
	if c.Click != nil {
		err := s.putItem(ctx, clickItem{
			PK: clickPK(ws, c.Click.EmailID), SK: timeKey(c.Click.ClickedAt) + "#" + c.Click.ID,
			URL: c.Click.URL, UserAgent: c.Click.UserAgent, ClickedAt: c.Click.ClickedAt,
		}, noCondition)
		if err != nil {
			return fmt.Errorf("record click: %w", err)
		}
	}
	if c.Suppress != "" {
		_, _, err := (&Suppressions{s.Table}).PutSuppression(ctx, ws, suppression.Suppression{
			Email: c.Suppress, Reason: c.Reason, EmailID: c.EmailID, CreatedAt: c.OccurredAt,
		})
		if err != nil {
			return err
		}
	}
	var dedupe any = dedupeItem{PK: dedupePK(ws), SK: c.DedupeID, ExpiresAt: s.now().Add(dedupeTTL).Unix()}
	if c.Event != nil {
		body, err := c.Event.Body()
		if err != nil {
			return err
		}
		it := feedItem{PK: feedPK(ws), SK: timeKey(c.Event.CreatedAt) + "#" + c.Event.ID, ID: c.Event.ID,
			Type: string(c.Event.Type), CreatedAt: c.Event.CreatedAt, Body: body}
		if c.Event.Data != nil {
			it.EmailID = c.Event.Data.ID
		}
		dedupe = it
	}
	put, err := s.putOf(dedupe, itemAbsent())
	if err != nil {
		return err
	}
	put.ReturnValuesOnConditionCheckFailure = ddbtypes.ReturnValuesOnConditionCheckFailureAllOld
	err = s.put(ctx, put)
	var ccf *ddbtypes.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		var old feedItem
		_ = attributevalue.UnmarshalMap(ccf.Item, &old) // a dedupe record has no body
		return &status.DuplicateError{Body: old.Body}
	}
	if err != nil {
		return fmt.Errorf("record SES event: %w", err)
	}
	for _, u := range s.counterUpdates(c) {
		if err := s.updateRetrying(ctx, u); err != nil {
			return fmt.Errorf("count SES event: %w", err)
		}
	}
	for _, name := range c.Reputation {
		if err := s.countReputation(ctx, ws, c.SentAt, name, 1); err != nil {
			return fmt.Errorf("count SES event: %w", err)
		}
	}
	return nil
}

// counterAttempts is how often a counter write is tried before the event
// is given up to SQS, whose redelivery finds the dedupe record and cannot
// count again: counters are the one write that is not redone.
const counterAttempts = 4

func (s *Statuses) updateRetrying(ctx context.Context, u *ddbtypes.Update) error {
	var err error
	for attempt := range counterAttempts {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return storeFault(ctx.Err())
			case <-time.After(time.Duration(attempt*attempt) * 50 * time.Millisecond):
			}
		}
		if err = s.update(ctx, u, nil); err == nil {
			return nil
		}
	}
	return err
}

// emailEventUpdate writes the email's new status and first-event times,
// only if its status is still the one the change was planned from.
func (s *Statuses) emailEventUpdate(c status.Change) (*ddbtypes.Update, error) {
	var update expression.UpdateBuilder
	if e := c.Email; e != nil {
		update = update.Set(expression.Name("status"), expression.Value(string(e.Status)))
		for name, t := range map[string]*time.Time{
			"delivered_at": e.DeliveredAt, "opened_at": e.OpenedAt, "clicked_at": e.ClickedAt,
			"bounced_at": e.BouncedAt, "complained_at": e.ComplainedAt,
		} {
			if t != nil {
				update = update.Set(expression.Name(name), expression.IfNotExists(expression.Name(name), expression.Value(t.UTC())))
			}
		}
		if e.Error != "" {
			update = update.Set(expression.Name("error"), expression.Value(e.Error))
		}
		update = update.Set(expression.Name("last_event_id"), expression.Value(c.DedupeID))
		if len(c.Metrics) > 0 {
			update = update.Set(expression.Name("last_event_metrics"), expression.Value(c.Metrics))
		} else {
			update = update.Remove(expression.Name("last_event_metrics"))
		}
	}
	cond := expression.Name("status").Equal(expression.Value(string(c.ExpectStatus)))
	for _, name := range c.FirstTimes {
		cond = cond.And(expression.AttributeNotExists(expression.Name(name)))
	}
	return s.updateOf(key(emailPK(c.WorkspaceID), c.EmailID), update, cond)
}

// counterUpdates adds the change's daily metrics, monthly usage and
// unsubscribe-click count: the writes that must not repeat.
func (s *Statuses) counterUpdates(c status.Change) []*ddbtypes.Update {
	var out []*ddbtypes.Update
	add := func(pk, sk string, names []string) {
		var update expression.UpdateBuilder
		for _, n := range names {
			update = update.Add(expression.Name(n), expression.Value(1))
		}
		if u, err := s.updateOf(key(pk, sk), update, noCondition); err == nil { // names are never empty here
			out = append(out, u)
		}
	}
	if len(c.Metrics) > 0 {
		add(metricsPK(c.WorkspaceID), c.OccurredAt.Format("2006-01-02"), c.Metrics)
	}
	if c.UsageMonth != "" {
		add(usagePK(c.WorkspaceID), c.UsageMonth, []string{"sent"})
	}
	if c.OptOutClick {
		add(emailPK(c.WorkspaceID), c.EmailID, []string{"opt_out_clicks"})
	}
	return out
}

// GetEmail reads the email an SES event is about.
func (s *Statuses) GetEmail(ctx context.Context, workspaceID, id string) (email.Email, error) {
	return (&Emails{s.Table}).GetEmail(ctx, workspaceID, id)
}
