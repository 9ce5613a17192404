package eventdb

import (
	"context"
	"fmt"
	"time"

	"github.com/sesame-mail/sesame/internal/dynamo"
)

type FeedItem struct {
	PK        string    `dynamodbav:"pk"`
	SK        string    `dynamodbav:"sk"`
	ID        string    `dynamodbav:"id"`
	Type      string    `dynamodbav:"type"`
	EmailID   string    `dynamodbav:"email_id,omitempty"`
	CreatedAt time.Time `dynamodbav:"created_at"`
	Body      []byte    `dynamodbav:"body"` // the exact envelope JSON
}

func (it FeedItem) SortKey() string { return it.SK }

// ListEvents returns the feed's envelopes newest first after position
// after ("" for the first page): the feed's shards (and the layout before
// them) merged by time, then id.
func (s *Events) ListEvents(ctx context.Context, workspaceID, after string, limit int) ([][]byte, string, bool, error) {
	items, next, more, err := dynamo.MergedPage[FeedItem](ctx, s.Table, dynamo.FeedShardPKs(workspaceID), after, limit)
	if err != nil {
		return nil, "", false, fmt.Errorf("list events: %w", err)
	}
	out := make([][]byte, 0, len(items))
	for _, it := range items {
		out = append(out, it.Body)
	}
	return out, next, more, nil
}
