package segment

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/ident"
)

// SegmentShown is a segment with its recipients now: how many, and a
// sample.
type SegmentShown struct {
	Segment
	Preview
}

// List returns the workspace's segments, oldest first.
func (s *Service) List(ctx context.Context, workspaceID string) ([]Segment, error) {
	if err := ident.RequireWorkspace(workspaceID); err != nil {
		return nil, err
	}
	return s.Store.ListSegments(ctx, workspaceID)
}

// Show reads a segment and evaluates it now, keeping up to sample of its
// recipients.
func (s *Service) Show(ctx context.Context, workspaceID, id string, sample int) (SegmentShown, error) {
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
func (s *Service) Delete(ctx context.Context, workspaceID, id string) (Segment, error) {
	seg, err := s.get(ctx, workspaceID, id)
	if err != nil {
		return Segment{}, err
	}
	err = s.Store.DeleteSegment(ctx, workspaceID, seg.ID)
	if errors.Is(err, ErrNotFound) { // deleted meanwhile
		return Segment{}, notASegment(id)
	}
	return seg, err
}

func (s *Service) get(ctx context.Context, workspaceID, id string) (Segment, error) {
	if err := ident.RequireWorkspace(workspaceID); err != nil {
		return Segment{}, err
	}
	seg, err := s.Store.GetSegment(ctx, workspaceID, strings.ToLower(strings.TrimSpace(id)))
	if errors.Is(err, ErrNotFound) {
		return Segment{}, notASegment(id)
	}
	return seg, err
}

func notASegment(id string) error {
	return fail.Errorf(fail.KindNotFound, "", "segment", "segment %q is not a segment of the workspace", id)
}
