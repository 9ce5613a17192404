package segment

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/fail"
)

// MaxName is the longest segment name, in characters.
const MaxName = 200

// ErrNotFound is a segment absent from the workspace.
var ErrNotFound error = fail.NotFound("segment")

// Segment is a named filter of a workspace. ContactCount is how many
// recipients (subscribed contacts off the do-not-send list) matched it
// when it was created; the members themselves are never stored, the
// filter is evaluated whenever the segment is used.
type Segment struct {
	ID           string
	WorkspaceID  string
	Name         string
	Filter       Filter
	ContactCount int
	CreatedAt    time.Time
}

// Store keeps segment records.
type Store interface {
	// CreateSegment stores a new segment of an existing workspace.
	CreateSegment(ctx context.Context, s Segment) error
	GetSegment(ctx context.Context, workspaceID, id string) (Segment, error)
	ListSegments(ctx context.Context, workspaceID string) ([]Segment, error)
	DeleteSegment(ctx context.Context, workspaceID, id string) error
}

// Service creates segments (the API, segments:write), and lists, shows
// and deletes them (the console and the dashboard).
type Service struct {
	Store    Store
	Resolver *Resolver
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// NewSegment is a segment to create: its name and its filter as written.
// Nil is an absent field.
type NewSegment struct {
	Name   *string
	Filter json.RawMessage
}

// Create checks the new segment, counts its recipients now and stores
// it. A bad name or filter is refused before anything is read.
func (s *Service) Create(ctx context.Context, workspaceID string, in NewSegment) (Segment, error) {
	name, err := checkName(in.Name)
	if err != nil {
		return Segment{}, err
	}
	if in.Filter == nil || string(in.Filter) == "null" {
		return Segment{}, fail.Missing(Param)
	}
	filter, err := Parse(in.Filter)
	if err != nil {
		return Segment{}, err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return Segment{}, fmt.Errorf("segment id: %w", err)
	}
	now := time.Now()
	if s.Now != nil {
		now = s.Now()
	}
	count, err := s.Resolver.Count(ctx, workspaceID, filter, now)
	if err != nil {
		return Segment{}, err
	}
	seg := Segment{ID: id.String(), WorkspaceID: workspaceID, Name: name, Filter: filter, ContactCount: count, CreatedAt: now.UTC()}
	if err := s.Store.CreateSegment(ctx, seg); err != nil {
		return Segment{}, err
	}
	return seg, nil
}

// checkName trims a segment's name and refuses an absent, blank, long
// or control-character one.
func checkName(name *string) (string, error) {
	if name == nil {
		return "", fail.Missing("name")
	}
	n := strings.TrimSpace(*name)
	switch {
	case n == "":
		return "", fail.Invalid("name", "name must not be blank")
	case utf8.RuneCountInString(n) > MaxName:
		return "", fail.Invalid("name", "name must be at most %d characters", MaxName)
	case strings.ContainsFunc(n, unicode.IsControl):
		return "", fail.Invalid("name", "name must not hold control characters")
	}
	return n, nil
}
