package owner

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/ident"
	"github.com/sesame-mail/sesame/internal/segment"
)

// SegmentStore keeps a workspace's segments.
type SegmentStore interface {
	GetSegment(ctx context.Context, workspaceID, id string) (segment.Segment, error)
	ListSegments(ctx context.Context, workspaceID string) ([]segment.Segment, error)
	DeleteSegment(ctx context.Context, workspaceID, id string) error
}

// Segments lists, shows and deletes a workspace's segments; the API
// creates them (segments:write).
type Segments struct {
	Store    SegmentStore
	Resolver *segment.Resolver
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// SegmentShown is a segment with its recipients now: how many, and a
// sample.
type SegmentShown struct {
	segment.Segment
	segment.Preview
}

// List returns the workspace's segments, oldest first.
func (s *Segments) List(ctx context.Context, workspaceID string) ([]segment.Segment, error) {
	if err := ident.RequireWorkspace(workspaceID); err != nil {
		return nil, err
	}
	return s.Store.ListSegments(ctx, workspaceID)
}

// Show reads a segment and evaluates it now, keeping up to sample of its
// recipients.
func (s *Segments) Show(ctx context.Context, workspaceID, id string, sample int) (SegmentShown, error) {
	seg, err := s.get(ctx, workspaceID, id)
	if err != nil {
		return SegmentShown{}, err
	}
	if sample < 0 {
		return SegmentShown{}, fail.Invalid("sample", "sample must be 0 or more")
	}
	now := time.Now()
	if s.Now != nil {
		now = s.Now()
	}
	p, err := s.Resolver.Preview(ctx, workspaceID, seg.Filter, now, sample)
	if err != nil {
		return SegmentShown{}, err
	}
	return SegmentShown{Segment: seg, Preview: p}, nil
}

// Delete removes a segment; no contact changes.
func (s *Segments) Delete(ctx context.Context, workspaceID, id string) (segment.Segment, error) {
	seg, err := s.get(ctx, workspaceID, id)
	if err != nil {
		return segment.Segment{}, err
	}
	err = s.Store.DeleteSegment(ctx, workspaceID, seg.ID)
	if errors.Is(err, segment.ErrNotFound) { // deleted meanwhile
		return segment.Segment{}, notASegment(id)
	}
	return seg, err
}

func (s *Segments) get(ctx context.Context, workspaceID, id string) (segment.Segment, error) {
	if err := ident.RequireWorkspace(workspaceID); err != nil {
		return segment.Segment{}, err
	}
	seg, err := s.Store.GetSegment(ctx, workspaceID, strings.ToLower(strings.TrimSpace(id)))
	if errors.Is(err, segment.ErrNotFound) {
		return segment.Segment{}, notASegment(id)
	}
	return seg, err
}

func notASegment(id string) error {
	return fail.Errorf(fail.KindNotFound, "", "segment", "segment %q is not a segment of the workspace", id)
}
