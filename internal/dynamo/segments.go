package dynamo

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/sesame-mail/sesame/internal/dynamo/schema"
	"github.com/sesame-mail/sesame/internal/segment"
)

// segmentItem is a segment: its filter in canonical JSON, never its
// members.
type segmentItem struct {
	PK           string    `dynamodbav:"pk"`
	SK           string    `dynamodbav:"sk"`
	ID           string    `dynamodbav:"id"`
	Name         string    `dynamodbav:"name"`
	Filter       string    `dynamodbav:"filter"`
	ContactCount int       `dynamodbav:"contact_count"`
	CreatedAt    time.Time `dynamodbav:"created_at"`
}

func (it segmentItem) segment(workspaceID string) (segment.Segment, error) {
	f, err := segment.Parse(json.RawMessage(it.Filter))
	if err != nil {
		return segment.Segment{}, fmt.Errorf("segment %s: stored filter: %w", it.ID, err)
	}
	return segment.Segment{
		ID: it.ID, WorkspaceID: workspaceID, Name: it.Name, Filter: f,
		ContactCount: it.ContactCount, CreatedAt: it.CreatedAt,
	}, nil
}

// CreateSegment stores a new segment. Its workspace is the API key's, so
// it is not checked again.
func (s *Segments) CreateSegment(ctx context.Context, seg segment.Segment) error {
	filter, err := json.Marshal(seg.Filter)
	if err != nil {
		return err
	}
	err = s.putItem(ctx, segmentItem{
		PK: segmentPK(seg.WorkspaceID), SK: seg.ID, ID: seg.ID, Name: seg.Name, Filter: string(filter),
		ContactCount: seg.ContactCount, CreatedAt: seg.CreatedAt.UTC(),
	}, itemAbsent())
	if err != nil {
		return fmt.Errorf("create segment: %w", err)
	}
	return nil
}

// GetSegment reads a segment (segment.ErrNotFound when absent).
func (s *Segments) GetSegment(ctx context.Context, workspaceID, id string) (segment.Segment, error) {
	var it segmentItem
	found, err := s.getItem(ctx, key(segmentPK(workspaceID), id), &it)
	if err != nil {
		return segment.Segment{}, fmt.Errorf("get segment: %w", err)
	}
	if !found {
		return segment.Segment{}, segment.ErrNotFound
	}
	return it.segment(workspaceID)
}

// ListSegments returns the workspace's segments, oldest first.
func (s *Segments) ListSegments(ctx context.Context, workspaceID string) ([]segment.Segment, error) {
	items, err := listPartition[segmentItem](ctx, s.Table, segmentPK(workspaceID))
	if err != nil {
		return nil, fmt.Errorf("list segments: %w", err)
	}
	out := make([]segment.Segment, 0, len(items))
	for _, it := range items {
		seg, err := it.segment(workspaceID)
		if err != nil {
			return nil, err
		}
		out = append(out, seg)
	}
	return out, nil
}

// DeleteSegment removes a segment (segment.ErrNotFound when absent).
func (s *Segments) DeleteSegment(ctx context.Context, workspaceID, id string) error {
	found, err := s.deleteExisting(ctx, key(segmentPK(workspaceID), id))
	if err != nil {
		return fmt.Errorf("delete segment: %w", err)
	}
	if !found {
		return segment.ErrNotFound
	}
	return nil
}

// EachSuppressedAddress calls fn with every address on the workspace's
// do-not-send list, a page at a time, oldest first: one Query of the
// list's GSI1 partition, which holds every entry whatever its shard (and
// those from before the shards); the key only is projected: a segment
// needs the addresses, not why they are there.
func (s *Suppressions) EachSuppressedAddress(ctx context.Context, workspaceID string, fn func(address string) error) error {
	in, err := s.partition(schema.GSI1, schema.AttrGSI1PK, suppressionListPK(workspaceID))
	if err != nil {
		return err
	}
	in.ProjectionExpression = aws.String("#sk")
	in.ExpressionAttributeNames["#sk"] = schema.AttrSK
	p := dynamodb.NewQueryPaginator(s.DB, in)
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return fmt.Errorf("read the do-not-send list: %w", err)
		}
		var keys []struct {
			SK string `dynamodbav:"sk"`
		}
		if err := attributevalue.UnmarshalListOfMaps(page.Items, &keys); err != nil {
			return err
		}
		for _, k := range keys {
			if err := fn(k.SK); err != nil {
				return err
			}
		}
	}
	return nil
}
