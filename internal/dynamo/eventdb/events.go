package eventdb

import (
	"context"
	"fmt"

	"github.com/sesame-mail/sesame/internal/dynamo"
)

// FeedItem is one event of the feed: its key (time, then id) and its
// envelope, deflated (feed_pack.go); the envelope carries the rest.
type FeedItem struct {
	PK     string `dynamodbav:"pk"`
	SK     string `dynamodbav:"sk"`
	Body   []byte `dynamodbav:"body,omitempty"`  // the exact envelope JSON, before bodyz
	Packed []byte `dynamodbav:"bodyz,omitempty"` // the same, deflated
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
		b, err := it.Envelope()
		if err != nil {
			return nil, "", false, fmt.Errorf("list events: %w", err)
		}
		out = append(out, b)
	}
	return out, next, more, nil
}
