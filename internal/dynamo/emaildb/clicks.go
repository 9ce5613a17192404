package emaildb

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/schema"
	"github.com/sesame-mail/sesame/internal/email"
)

type ClickItem struct {
	PK        string    `dynamodbav:"pk"`
	SK        string    `dynamodbav:"sk"`
	URL       string    `dynamodbav:"url"`
	UserAgent string    `dynamodbav:"user_agent,omitempty"`
	ClickedAt time.Time `dynamodbav:"clicked_at"`
}

// ListClicks returns up to limit click records of an email, newest
// first, and whether more exist. An email's first click may be kept on
// the email instead (email.Email.FirstClick; email.MergeClicks lists both).
func (s *Clicks) ListClicks(ctx context.Context, workspaceID, emailID string, limit int) ([]email.Click, bool, error) {
	items, _, more, err := s.QueryPage(ctx, dynamo.ClickPK(workspaceID, emailID), "", limit)
	if err != nil {
		return nil, false, fmt.Errorf("list clicks: %w", err)
	}
	out := make([]email.Click, 0, len(items))
	for _, item := range items {
		var it ClickItem
		if err := attributevalue.UnmarshalMap(item, &it); err != nil {
			return nil, false, err
		}
		out = append(out, email.Click{URL: it.URL, UserAgent: it.UserAgent, ClickedAt: it.ClickedAt})
	}
	return out, more, nil
}

// FirstClickAgentBytes bounds the user agent kept with a first click on
// the email (browsers send 100 to 200 bytes); a longer one is cut there.
const FirstClickAgentBytes = 256

// writeUnit is the item size one write unit covers.
const writeUnit = 1024

// firstClickSlack is room for what an email's read does not carry: the
// id and workspace_id of an email stored before the keys said them (86
// bytes).
const firstClickSlack = 100

// laterMetricsRoom is room for what later events record on a clicked
// email besides their times: last_event_metrics of up to two counters
// (each 30 bytes or so) and opt_out_clicks.
const laterMetricsRoom = 64 + len("opt_out_clicks") + 3

// timeBytes is the longest time attribute value (RFC 3339, nanoseconds).
var timeBytes = len("2006-01-02T15:04:05.999999999Z")

// FirstClickUpdate adds click, the email's first tracked click, to
// update, the update that leaves the email as after (its last event and
// metrics included), when the email's item then still fits one write unit
// with room for the times later events may set (delivered, opened,
// bounced, complained) and firstClickSlack. Otherwise it returns update
// unchanged and false: the click needs its own ClickItem, as a long URL,
// subject or tag list would push every later update of the email to two
// write units.
func FirstClickUpdate(update expression.UpdateBuilder, after email.Email, click email.Click) (expression.UpdateBuilder, bool, error) {
	click.UserAgent = schema.CutText(click.UserAgent, FirstClickAgentBytes)
	click.ClickedAt = click.ClickedAt.UTC()
	after.FirstClick = &click
	it := NewEmailItem(after)
	it.OptOutClicks, it.LastEventID, it.LastMetrics = after.OptOutClicks, after.LastEventID, after.LastEventMetrics
	av, err := attributevalue.MarshalMap(it)
	if err != nil {
		return update, false, fmt.Errorf("size email item: %w", err)
	}
	room := firstClickSlack + laterMetricsRoom
	for name, t := range map[string]*time.Time{"delivered_at": after.DeliveredAt, "opened_at": after.OpenedAt, "bounced_at": after.BouncedAt, "complained_at": after.ComplainedAt} {
		if t == nil {
			room += len(name) + timeBytes
		}
	}
	if schema.ItemSize(av)+room > writeUnit {
		return update, false, nil
	}
	update = update.Set(expression.Name("fc_url"), expression.Value(click.URL)).
		Set(expression.Name("fc_at"), expression.Value(click.ClickedAt))
	if click.UserAgent != "" {
		update = update.Set(expression.Name("fc_ua"), expression.Value(click.UserAgent))
	}
	return update, true, nil
}
