package email

import (
	"context"
	"errors"
	"time"

	"github.com/sesame-mail/sesame/internal/fail"
)

// Service reads a workspace's emails and their clicks: what the email
// read routes serve. A function sets only the stores its route reads.
type Service struct {
	Store  Store
	Clicks ClickStore
}

// Get is the email id of the workspace; not_found when absent or foreign.
func (s *Service) Get(ctx context.Context, workspaceID, id string) (Email, error) {
	e, err := s.Store.GetEmail(ctx, workspaceID, id)
	if errors.Is(err, ErrNotFound) {
		return Email{}, fail.NotFound("email")
	}
	return e, err
}

// Page is up to limit emails passing f, newest first, after position
// after ("" for the first page), with the position to continue after and
// whether more follow.
func (s *Service) Page(ctx context.Context, workspaceID string, f Filter, after string, limit int) ([]Email, string, bool, error) {
	return s.Store.ListEmails(ctx, workspaceID, f, after, limit)
}

// ClickList is an email's tracked clicks, newest first (at most
// MaxClicks; Truncated past it), and its unsubscribe clicks, only counted.
type ClickList struct {
	Clicks       []Click
	OptOutClicks int
	Truncated    bool
	// Reconstructed is the latest click time of an email stored before
	// clicks were kept one by one (no click rows); nil otherwise.
	Reconstructed *time.Time
}

// ClickList reads the clicks of email id; not_found when the email is
// absent or foreign.
func (s *Service) ClickList(ctx context.Context, workspaceID, id string) (ClickList, error) {
	e, err := s.Get(ctx, workspaceID, id)
	if err != nil {
		return ClickList{}, err
	}
	clicks, truncated, err := s.Clicks.ListClicks(ctx, workspaceID, id, MaxClicks)
	if err != nil {
		return ClickList{}, err
	}
	out := ClickList{Clicks: clicks, OptOutClicks: e.OptOutClicks, Truncated: truncated}
	if len(clicks) == 0 {
		out.Reconstructed = e.ClickedAt
	}
	return out, nil
}
