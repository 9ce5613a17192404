package email_test

import (
	"context"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/fail"
)

// storeFunc is an email.Store and email.ClickStore from functions.
type storeFunc struct {
	get    func(id string) (email.Email, error)
	clicks func(id string) ([]email.Click, bool, error)
}

func (f storeFunc) GetEmail(_ context.Context, _, id string) (email.Email, error) { return f.get(id) }

func (storeFunc) ListEmails(context.Context, string, email.Filter, string, int) ([]email.Email, string, bool, error) {
	return nil, "", false, nil
}

func (f storeFunc) ListClicks(_ context.Context, _, id string, _ int) ([]email.Click, bool, error) {
	return f.clicks(id)
}

// An email with no click rows but a latest click time (stored before
// clicks were kept one by one) has that time reconstructed; one with rows
// has them alone; an absent email is not_found, its clicks unread.
func TestClickList(t *testing.T) {
	at := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	read := 0
	store := storeFunc{
		get: func(id string) (email.Email, error) {
			if id == "gone" {
				return email.Email{}, email.ErrNotFound
			}
			return email.Email{ID: id, ClickedAt: &at, OptOutClicks: 2}, nil
		},
		clicks: func(id string) ([]email.Click, bool, error) {
			read++
			if id == "old" {
				return nil, false, nil
			}
			return []email.Click{{URL: "https://example.org", ClickedAt: at}}, true, nil
		},
	}
	s := &email.Service{Store: store, Clicks: store}
	old, err := s.ClickList(t.Context(), "ws", "old")
	if err != nil || len(old.Clicks) != 0 || old.Reconstructed == nil || !old.Reconstructed.Equal(at) || old.OptOutClicks != 2 {
		t.Errorf("older email: %+v, %v", old, err)
	}
	kept, err := s.ClickList(t.Context(), "ws", "new")
	if err != nil || len(kept.Clicks) != 1 || kept.Reconstructed != nil || !kept.Truncated {
		t.Errorf("kept clicks: %+v, %v", kept, err)
	}
	read = 0
	if _, err := s.ClickList(t.Context(), "ws", "gone"); fail.KindOf(err) != fail.KindNotFound {
		t.Errorf("absent email: %v, want not_found", err)
	}
	if read != 0 {
		t.Error("clicks read for an absent email")
	}
}
