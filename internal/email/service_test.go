package email_test

import (
	"context"
	"fmt"
	"slices"
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

// The first click kept on the email joins the click records by its time,
// newest first, under the same bound: a list that only the bound cuts
// says more; an email without one lists its records as read.
func TestMergeClicks(t *testing.T) {
	at := func(min int) time.Time { return time.Date(2026, 11, 20, 9, min, 0, 0, time.UTC) }
	click := func(min int) email.Click {
		return email.Click{URL: fmt.Sprintf("https://example.org/%d", min), ClickedAt: at(min)}
	}
	cases := map[string]struct {
		first    *email.Click
		records  []email.Click
		more     bool
		limit    int
		want     []int // minutes, newest first
		wantMore bool
	}{
		"no first click":                {nil, []email.Click{click(5), click(3)}, false, 10, []int{5, 3}, false},
		"no first click, more":          {nil, []email.Click{click(5), click(3)}, true, 2, []int{5, 3}, true},
		"first click alone":             {ptr(click(1)), nil, false, 10, []int{1}, false},
		"first click oldest":            {ptr(click(1)), []email.Click{click(5), click(3)}, false, 10, []int{5, 3, 1}, false},
		"first click's event came late": {ptr(click(4)), []email.Click{click(5), click(3)}, false, 10, []int{5, 4, 3}, false},
		"first click newest":            {ptr(click(9)), []email.Click{click(5), click(3)}, false, 10, []int{9, 5, 3}, false},
		"the bound cuts the oldest":     {ptr(click(1)), []email.Click{click(5), click(3)}, false, 2, []int{5, 3}, true},
		"records beyond the bound":      {ptr(click(4)), []email.Click{click(5), click(3)}, true, 2, []int{5, 4}, true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, more := email.MergeClicks(email.Email{FirstClick: tc.first}, tc.records, tc.more, tc.limit)
			var mins []int
			for _, c := range got {
				mins = append(mins, c.ClickedAt.Minute())
				if c.URL != fmt.Sprintf("https://example.org/%d", c.ClickedAt.Minute()) {
					t.Errorf("click at %d has url %s", c.ClickedAt.Minute(), c.URL)
				}
			}
			if !slices.Equal(mins, tc.want) || more != tc.wantMore {
				t.Errorf("clicks at %v, more %v; want %v, %v", mins, more, tc.want, tc.wantMore)
			}
		})
	}
}

// An email whose only click is kept on it lists that click, not a
// reconstructed one; the dashboard's view lists it too.
func TestClickListWithFirstClickOnTheEmail(t *testing.T) {
	at := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	first := email.Click{URL: "https://example.org/a", UserAgent: "Mozilla/5.0", ClickedAt: at}
	store := storeFunc{
		get: func(id string) (email.Email, error) {
			return email.Email{ID: id, WorkspaceID: "ws", ClickedAt: &at, FirstClick: &first}, nil
		},
		clicks: func(string) ([]email.Click, bool, error) { return nil, false, nil },
	}
	got, err := (&email.Service{Store: store, Clicks: store}).ClickList(t.Context(), "ws", "e")
	if err != nil || len(got.Clicks) != 1 || got.Clicks[0] != first || got.Reconstructed != nil || got.Truncated {
		t.Errorf("click list = %+v, %v; want the first click alone", got, err)
	}
}

func ptr[T any](v T) *T { return &v }
