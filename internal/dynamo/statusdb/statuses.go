package statusdb

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/emaildb"
	"github.com/sesame-mail/sesame/internal/dynamo/eventdb"
	"github.com/sesame-mail/sesame/internal/dynamo/schema"
	"github.com/sesame-mail/sesame/internal/dynamo/suppressiondb"
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
// its status, carrying its first click when that fits; the click record
// and suppression, at fixed keys), then the dedupe record (the feed item
// for feed events), conditionally, so a duplicate stops there. Its counts are the caller's (Count, once per
// batch): a fault before the dedupe record is redone by the redelivered
// event (which finds the email already changed by itself and still owing
// its counts).
func (s *Statuses) Apply(ctx context.Context, c status.Change) error {
	ws := c.WorkspaceID
	clickOnEmail := false
	if c.Email != nil {
		update, cond := emailEventUpdate(c)
		if c.FirstClick() {
			// The first click rides on the email's update when the item
			// stays one write unit; its redelivery finds it there (Plan).
			after := *c.Email
			after.LastEventID, after.LastEventMetrics = c.DedupeID, c.Metrics
			var err error
			update, clickOnEmail, err = emaildb.FirstClickUpdate(update, after, email.Click{URL: c.Click.URL, UserAgent: c.Click.UserAgent, ClickedAt: c.Click.ClickedAt})
			if err != nil {
				return err
			}
		}
		if err := (&emaildb.Emails{Table: s.Table}).UpdateEmail(ctx, ws, c.EmailID, update, cond); dynamo.IsConditionFailed(err) {
			return status.ErrStale
		} else if err != nil {
			return fmt.Errorf("apply SES event to email: %w", err)
		}
	}
	if c.Click != nil && !clickOnEmail {
		err := s.PutItem(ctx, emaildb.ClickItem{
			PK: dynamo.ClickPK(ws, c.Click.EmailID), SK: dynamo.TimeKey(c.Click.ClickedAt) + "#" + c.Click.ID,
			URL: c.Click.URL, UserAgent: c.Click.UserAgent, ClickedAt: c.Click.ClickedAt,
		}, dynamo.NoCondition)
		if err != nil {
			return fmt.Errorf("record click: %w", err)
		}
	}
	if c.Suppress != "" {
		_, _, err := (&suppressiondb.Suppressions{Table: s.Table}).PutSuppression(ctx, ws, suppression.Suppression{
			Email: c.Suppress, Reason: c.Reason, EmailID: c.EmailID, CreatedAt: c.OccurredAt,
		})
		if err != nil {
			return err
		}
	}
	var dedupe any = dedupeItem{PK: dynamo.DedupePK(ws, c.DedupeID), SK: c.DedupeID, ExpiresAt: s.Time().Add(dedupeTTL).Unix()}
	if c.Event != nil {
		body, err := c.Event.Body()
		if err != nil {
			return err
		}
		packed, err := eventdb.PackBody(body)
		if err != nil {
			return err
		}
		dedupe = eventdb.FeedItem{PK: dynamo.FeedPK(ws, c.Event.ID), SK: dynamo.TimeKey(c.Event.CreatedAt) + "#" + c.Event.ID, Packed: packed}
	}
	put, err := s.PutOf(dedupe, dynamo.ItemAbsent())
	if err != nil {
		return err
	}
	put.ReturnValuesOnConditionCheckFailure = ddbtypes.ReturnValuesOnConditionCheckFailureAllOld
	err = s.Put(ctx, put)
	var ccf *ddbtypes.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		var old eventdb.FeedItem
		_ = attributevalue.UnmarshalMap(ccf.Item, &old) // a dedupe record has no body
		body, err := old.Envelope()
		if err != nil {
			return err
		}
		return &status.DuplicateError{Body: body}
	}
	if err != nil {
		return fmt.Errorf("record SES event: %w", err)
	}
	return nil
}

// Count adds the tallied counts: one UpdateItem (an ADD of each name) per
// counter item, retried here, for the counts cannot be redone (see
// counterAttempts). It goes on past a failed item and reports the first
// failure; a counter of a kind it does not know is one.
func (s *Statuses) Count(ctx context.Context, t status.Tally) error {
	var first error
	for _, k := range slices.SortedFunc(maps.Keys(t), compareCounters) {
		var err error
		if k.Kind == status.OptOutClicks { // on the email, wherever it is
			err = s.countOptOuts(ctx, k, t[k])
		} else {
			var u *ddbtypes.Update
			if u, err = s.counterUpdate(k, t[k]); err == nil {
				err = retryCount(ctx, func() error { return s.Update(ctx, u, nil) })
			}
		}
		if err != nil && first == nil {
			first = fmt.Errorf("count SES events: %w", err)
		}
	}
	return first
}

// counterUpdate adds counts to counter k's item, in the partition of its
// kind with k.Key as SK; a reputation hour's item expires.
func (s *Statuses) counterUpdate(k status.Counter, counts map[string]int) (*ddbtypes.Update, error) {
	var update expression.UpdateBuilder
	for _, n := range slices.Sorted(maps.Keys(counts)) {
		update = update.Add(expression.Name(n), expression.Value(counts[n]))
	}
	var pk string
	switch k.Kind {
	case status.DailyMetrics: // a shard of the day's counts, any
		pk = dynamo.MetricsShardPKs(k.WorkspaceID)[rand.IntN(dynamo.CounterShards)]
	case status.MonthlyUsage: // a shard of the month's usage, any
		pk = dynamo.UsageShardPKs(k.WorkspaceID)[rand.IntN(dynamo.UsageShards)]
	case status.Reputation:
		hour, err := time.Parse(status.ReputationHourLayout, k.Key)
		if err != nil {
			return nil, fmt.Errorf("reputation hour %q: %w", k.Key, err)
		}
		pk = dynamo.ReputationPK(k.WorkspaceID)
		update = update.Set(expression.Name(schema.AttrExpiresAt), expression.Value(dynamo.ReputationExpiry(hour)))
	default:
		return nil, fmt.Errorf("unknown counter kind %q", k.Kind)
	}
	return s.UpdateOf(dynamo.Key(pk, k.Key), update, dynamo.NoCondition)
}

// countOptOuts adds opt-out clicks to email k.Key, retried like the
// other counts; an email no longer there takes none.
func (s *Statuses) countOptOuts(ctx context.Context, k status.Counter, counts map[string]int) error {
	var update expression.UpdateBuilder
	for _, n := range slices.Sorted(maps.Keys(counts)) {
		update = update.Add(expression.Name(n), expression.Value(counts[n]))
	}
	return retryCount(ctx, func() error {
		if err := (&emaildb.Emails{Table: s.Table}).UpdateEmail(ctx, k.WorkspaceID, k.Key, update, dynamo.ItemExists()); !dynamo.IsConditionFailed(err) {
			return err
		}
		return nil
	})
}

func compareCounters(a, b status.Counter) int {
	return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.WorkspaceID, b.WorkspaceID), cmp.Compare(a.Key, b.Key))
}

// counterAttempts is how often a counter write is tried before its counts
// are given up: a redelivered event finds its dedupe record and cannot
// count again, so counters are the one write that is not redone.
const counterAttempts = 4

// retryCount runs write, a counter's, up to counterAttempts times.
func retryCount(ctx context.Context, write func() error) error {
	var err error
	for attempt := range counterAttempts {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return dynamo.StoreFault(ctx.Err())
			case <-time.After(time.Duration(attempt*attempt) * 50 * time.Millisecond):
			}
		}
		if err = write(); err == nil {
			return nil
		}
	}
	return err
}

// emailEventUpdate writes the email's new status and first-event times,
// only if its status is still the one the change was planned from.
func emailEventUpdate(c status.Change) (expression.UpdateBuilder, expression.ConditionBuilder) {
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
	return update, cond
}

// GetEmail reads the email an SES event is about.
func (s *Statuses) GetEmail(ctx context.Context, workspaceID, id string) (email.Email, error) {
	return (&emaildb.Emails{Table: s.Table}).GetEmail(ctx, workspaceID, id)
}

// PeekEmail reads the email an SES event is about eventually consistently
// (emaildb.Emails.PeekEmail).
func (s *Statuses) PeekEmail(ctx context.Context, workspaceID, id string) (email.Email, error) {
	return (&emaildb.Emails{Table: s.Table}).PeekEmail(ctx, workspaceID, id)
}
