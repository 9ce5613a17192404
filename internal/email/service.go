package email

import (
	"context"
	"errors"
	"slices"
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
	records, more, err := s.Clicks.ListClicks(ctx, workspaceID, id, MaxClicks)
	if err != nil {
		return ClickList{}, err
	}
	clicks, truncated := MergeClicks(e, records, more, MaxClicks)
	out := ClickList{Clicks: clicks, OptOutClicks: e.OptOutClicks, Truncated: truncated}
	if len(clicks) == 0 {
		out.Reconstructed = e.ClickedAt
	}
	return out, nil
}

// MergeClicks lists e's first click kept on the email with the click
// records read (up to limit, newest first, more when others follow):
// newest first, at most limit, more when any was left out. Records past
// the ones read are older than all of them, so the union's newest limit
// are among these.
func MergeClicks(e Email, records []Click, more bool, limit int) ([]Click, bool) {
	if e.FirstClick == nil {
		return records, more
	}
	out := make([]Click, 0, len(records)+1)
	out = append(out, records...)
	// SES may deliver a later click's event first: place it by its time.
	i, _ := slices.BinarySearchFunc(out, e.FirstClick.ClickedAt, func(c Click, t time.Time) int { return t.Compare(c.ClickedAt) })
	out = slices.Insert(out, i, *e.FirstClick)
	if len(out) > limit {
		return out[:limit], true
	}
	return out, more
}
