package owner_test

import (
	"context"
	"testing"

	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/owner"
)

// The list's filters take the API's values; an unknown one is refused,
// named by its input, and nothing is read.
func TestEmailFilter(t *testing.T) {
	cases := map[string]struct {
		in    owner.EmailFilter
		field string
	}{
		"none":            {in: owner.EmailFilter{}},
		"all":             {in: owner.EmailFilter{Status: "opened", Type: "campaign", Environment: "test"}},
		"bad status":      {in: owner.EmailFilter{Status: "lost"}, field: "status"},
		"bad type":        {in: owner.EmailFilter{Type: "bulk"}, field: "type"},
		"bad environment": {in: owner.EmailFilter{Environment: "prod"}, field: "environment"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			read := false
			emails := &owner.Emails{Store: listFunc(func(f email.Filter) { read = true })}
			_, _, err := emails.List(context.Background(), "ws", tc.in, "", 10)
			switch {
			case tc.field == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.field != "" && (fail.ParamOf(err) != tc.field || read):
				t.Fatalf("err = %v (read %v), want a refusal of %s and no read", err, read, tc.field)
			}
		})
	}
	if _, _, err := (&owner.Emails{}).List(context.Background(), "ws", owner.EmailFilter{}, "", owner.EmailsPage+1); err == nil {
		t.Error("a page above the limit is taken")
	}
}

// listFunc is an email store whose list calls f and returns one empty
// last page.
type listFunc func(email.Filter)

func (l listFunc) ListEmails(_ context.Context, _ string, f email.Filter, _ string, _ int) ([]email.Email, string, bool, error) {
	l(f)
	return nil, "", false, nil
}

func (listFunc) GetEmail(context.Context, string, string) (email.Email, error) {
	return email.Email{}, email.ErrNotFound
}

func (listFunc) ListClicks(context.Context, string, string, int) ([]email.Click, bool, error) {
	return nil, false, nil
}
