package dynamo

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

	"github.com/sesame-mail/sesame/internal/dynamo/schema"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/status"
)

// The events feed lives under WS#<ws>#EVENT sorted by event time, so the
// feed is a reverse Query. SES events the feed does not show leave a small
// dedupe record that expires.
func feedPK(ws string) string    { return wsPK(ws, "EVENT") }
func dedupePK(ws string) string  { return wsPK(ws, "SESEVENT") }
func metricsPK(ws string) string { return wsPK(ws, "METRICS") }
func clickPK(ws, emailID string) string {
	return wsPK(ws, "CLICK#"+emailID)
}

// dedupeTTL outlives any SQS redelivery of an SES event.
const dedupeTTL = 14 * 24 * time.Hour

// timeKey is a fixed-width UTC time that sorts as text.
func timeKey(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000000Z") }

type feedItem struct {
	PK        string    `dynamodbav:"pk"`
	SK        string    `dynamodbav:"sk"`
	ID        string    `dynamodbav:"id"`
	Type      string    `dynamodbav:"type"`
	EmailID   string    `dynamodbav:"email_id,omitempty"`
	CreatedAt time.Time `dynamodbav:"created_at"`
	Body      []byte    `dynamodbav:"body"` // the exact envelope JSON
}

type clickItem struct {
	PK        string    `dynamodbav:"pk"`
	SK        string    `dynamodbav:"sk"`
	URL       string    `dynamodbav:"url"`
	UserAgent string    `dynamodbav:"user_agent,omitempty"`
	ClickedAt time.Time `dynamodbav:"clicked_at"`
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
func (s *Store) Apply(ctx context.Context, c status.Change) error {
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
		if err := s.AddSuppression(ctx, ws, c.Suppress, c.Reason); err != nil {
			return err
		}
	}
	var dedupe any = map[string]any{schema.AttrPK: dedupePK(ws), schema.AttrSK: c.DedupeID, schema.AttrExpiresAt: s.now().Add(dedupeTTL).Unix()}
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
	return nil
}

// counterAttempts is how often a counter write is tried before the event
// is given up to SQS, whose redelivery finds the dedupe record and cannot
// count again: counters are the one write that is not redone.
const counterAttempts = 4

func (s *Store) updateRetrying(ctx context.Context, u *ddbtypes.Update) error {
	var err error
	for attempt := range counterAttempts {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return ctx.Err()
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
func (s *Store) emailEventUpdate(c status.Change) (*ddbtypes.Update, error) {
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
func (s *Store) counterUpdates(c status.Change) []*ddbtypes.Update {
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

// ListEvents returns the feed's envelopes newest first after position
// after ("" for the first page).
func (s *Store) ListEvents(ctx context.Context, workspaceID, after string, limit int) ([][]byte, string, bool, error) {
	items, next, more, err := s.queryPage(ctx, feedPK(workspaceID), after, limit)
	if err != nil {
		return nil, "", false, fmt.Errorf("list events: %w", err)
	}
	out := make([][]byte, 0, len(items))
	for _, item := range items {
		var it feedItem
		if err := attributevalue.UnmarshalMap(item, &it); err != nil {
			return nil, "", false, err
		}
		out = append(out, it.Body)
	}
	return out, next, more, nil
}

// queryPage reads up to limit items of one partition newest first after
// the sort key after; the position of the last item continues the list.
func (s *Store) queryPage(ctx context.Context, pk, after string, limit int) ([]map[string]ddbtypes.AttributeValue, string, bool, error) {
	expr, err := expression.NewBuilder().WithKeyCondition(expression.Key(schema.AttrPK).Equal(expression.Value(pk))).Build()
	if err != nil {
		return nil, "", false, err
	}
	in := &dynamodb.QueryInput{
		TableName: &s.Table, ScanIndexForward: aws.Bool(false),
		KeyConditionExpression: expr.KeyCondition(), ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	}
	if after != "" {
		in.ExclusiveStartKey = key(pk, after)
	}
	// One more than the page tells whether another exists; a Query page
	// also stops at 1 MB, so keep reading until that many or the end.
	var items []map[string]ddbtypes.AttributeValue
	for len(items) <= limit {
		in.Limit = aws.Int32(int32(limit + 1 - len(items)))
		out, err := s.DB.Query(ctx, in)
		if err != nil {
			return nil, "", false, err
		}
		items = append(items, out.Items...)
		if len(out.LastEvaluatedKey) == 0 {
			break
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	if len(items) > limit {
		items = items[:limit]
		return items, aws.ToString(stringAttr(items[limit-1], schema.AttrSK)), true, nil
	}
	return items, "", false, nil
}

// ListClicks returns up to limit clicks of an email, newest first, and
// whether more exist.
func (s *Store) ListClicks(ctx context.Context, workspaceID, emailID string, limit int) ([]email.Click, bool, error) {
	items, _, more, err := s.queryPage(ctx, clickPK(workspaceID, emailID), "", limit)
	if err != nil {
		return nil, false, fmt.Errorf("list clicks: %w", err)
	}
	out := make([]email.Click, 0, len(items))
	for _, item := range items {
		var it clickItem
		if err := attributevalue.UnmarshalMap(item, &it); err != nil {
			return nil, false, err
		}
		out = append(out, email.Click{URL: it.URL, UserAgent: it.UserAgent, ClickedAt: it.ClickedAt})
	}
	return out, more, nil
}

// DailyMetrics returns the counters of each day from..to (YYYY-MM-DD,
// inclusive) that has any, by day.
func (s *Store) DailyMetrics(ctx context.Context, workspaceID, from, to string) (map[string]map[string]int, error) {
	keyCond := expression.Key(schema.AttrPK).Equal(expression.Value(metricsPK(workspaceID))).
		And(expression.Key(schema.AttrSK).Between(expression.Value(from), expression.Value(to)))
	expr, err := expression.NewBuilder().WithKeyCondition(keyCond).Build()
	if err != nil {
		return nil, err
	}
	p := dynamodb.NewQueryPaginator(s.DB, &dynamodb.QueryInput{
		TableName: &s.Table, KeyConditionExpression: expr.KeyCondition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	})
	days := map[string]map[string]int{}
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("read metrics: %w", err)
		}
		for _, item := range page.Items {
			day := aws.ToString(stringAttr(item, schema.AttrSK))
			counts := map[string]int{}
			for name, v := range item {
				if name == schema.AttrPK || name == schema.AttrSK {
					continue
				}
				var n int
				if err := attributevalue.Unmarshal(v, &n); err == nil {
					counts[name] = n
				}
			}
			days[day] = counts
		}
	}
	return days, nil
}
