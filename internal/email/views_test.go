package email_test

import (
	"context"
	"testing"

	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/fail"
)

// The list's filters take the API's values; an unknown one is refused,
// named by its input, and nothing is read.
func TestEmailFilter(t *testing.T) {
	cases := map[string]struct {
		in    email.FilterInput
		field string
	}{
		"none":            {in: email.FilterInput{}},
		"all":             {in: email.FilterInput{Status: "opened", Type: "campaign", Environment: "test"}},
		"bad status":      {in: email.FilterInput{Status: "lost"}, field: "status"},
		"bad type":        {in: email.FilterInput{Type: "bulk"}, field: "type"},
		"bad environment": {in: email.FilterInput{Environment: "prod"}, field: "environment"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			read := false
			emails := &email.Views{Store: listFunc(func(f email.Filter) { read = true })}
			_, _, err := emails.List(context.Background(), "ws", tc.in, "", 10)
			switch {
			case tc.field == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.field != "" && (fail.ParamOf(err) != tc.field || read):
				t.Fatalf("err = %v (read %v), want a refusal of %s and no read", err, read, tc.field)
			}
		})
	}
	if _, _, err := (&email.Views{}).List(context.Background(), "ws", email.FilterInput{}, "", email.ViewsPage+1); err == nil {
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
