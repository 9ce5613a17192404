package segmentdb

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/sesame-mail/sesame/internal/dynamo"
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
	err = s.PutItem(ctx, segmentItem{
		PK: dynamo.SegmentPK(seg.WorkspaceID), SK: seg.ID, ID: seg.ID, Name: seg.Name, Filter: string(filter),
		ContactCount: seg.ContactCount, CreatedAt: seg.CreatedAt.UTC(),
	}, dynamo.ItemAbsent())
	if err != nil {
		return fmt.Errorf("create segment: %w", err)
	}
	return nil
}

// GetSegment reads a segment (segment.ErrNotFound when absent).
func (s *Segments) GetSegment(ctx context.Context, workspaceID, id string) (segment.Segment, error) {
	var it segmentItem
	found, err := s.GetItem(ctx, dynamo.Key(dynamo.SegmentPK(workspaceID), id), &it)
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
	items, err := dynamo.ListPartition[segmentItem](ctx, s.Table, dynamo.SegmentPK(workspaceID))
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
	found, err := s.DeleteExisting(ctx, dynamo.Key(dynamo.SegmentPK(workspaceID), id))
	if err != nil {
		return fmt.Errorf("delete segment: %w", err)
	}
	if !found {
		return segment.ErrNotFound
	}
	return nil
}
