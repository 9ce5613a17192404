package dynamo

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sesame-mail/sesame/internal/dynamo/schema"
)

// timeKey is a fixed-width UTC time that sorts as text.
func timeKey(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000000Z") }

// feedItem is one event of the feed: its key (time, then id) and its
// envelope, deflated (feed_pack.go); the envelope carries the rest.
type feedItem struct {
	PK     string `dynamodbav:"pk"`
	SK     string `dynamodbav:"sk"`
	Body   []byte `dynamodbav:"body,omitempty"`  // the exact envelope JSON, before bodyz
	Packed []byte `dynamodbav:"bodyz,omitempty"` // the same, deflated
}

func (it feedItem) sortKey() string { return it.SK }

// ListEvents returns the feed's envelopes newest first after position
// after ("" for the first page): the feed's shards (and the layout before
// them) merged by time, then id.
func (s *Events) ListEvents(ctx context.Context, workspaceID, after string, limit int) ([][]byte, string, bool, error) {
	items, next, more, err := mergedPage[feedItem](ctx, s.Table, feedShardPKs(workspaceID), after, limit)
	if err != nil {
		return nil, "", false, fmt.Errorf("list events: %w", err)
	}
	out := make([][]byte, 0, len(items))
	for _, it := range items {
		b, err := it.body()
		if err != nil {
			return nil, "", false, fmt.Errorf("list events: %w", err)
		}
		out = append(out, b)
	}
	return out, next, more, nil
}

// queryPage reads up to limit items of one partition newest first after
// the sort key after; the position of the last item continues the list.
func (s *Table) queryPage(ctx context.Context, pk, after string, limit int) ([]map[string]ddbtypes.AttributeValue, string, bool, error) {
	expr, err := expression.NewBuilder().WithKeyCondition(expression.Key(schema.AttrPK).Equal(expression.Value(pk))).Build()
	if err != nil {
		return nil, "", false, err
	}
	in := &dynamodb.QueryInput{
		TableName: &s.Name, ScanIndexForward: aws.Bool(false),
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
