package emaildb_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
	"github.com/sesame-mail/sesame/internal/dynamo/emaildb"
	"github.com/sesame-mail/sesame/internal/email"
)

// One list request examines at most 1,000 emails across the shards read
// in parallel: past that the page is shorter and has_more is true, and its
// cursor continues below the last email examined, so the pages neither
// repeat nor skip one.
func TestListEmailsReadBudget(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	store, _ := dynamotest.NewStore(t)
	ws := uuid.NewString()
	const total = 1200
	// Bounced emails are rare: at these positions, newest first.
	bounced := []int{5, 500, 1100, 1150}
	ids := make([]string, total)
	for i := range ids {
		ids[i] = uuid.Must(uuid.NewV7()).String()
	}
	slices.Sort(ids) // oldest first; newest-first position j is ids[total-1-j]
	idAt := func(j int) string { return ids[total-1-j] }
	sent := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	dynamotest.Each(t, 0, total, func(j int) error {
		e := email.Email{
			ID: idAt(j), WorkspaceID: ws, To: fmt.Sprintf("r%d@example.com", j), Subject: "Hello",
			Status: email.StatusDelivered, Type: email.TypeTransactional, Environment: apikey.Live,
			SentAt: sent.Add(-time.Duration(j) * time.Second),
		}
		if slices.Contains(bounced, j) {
			e.Status = email.StatusBounced
		}
		return store.Emails.PutEmail(ctx, e)
	})

	cases := map[string]struct {
		filter email.Filter
		limit  int
		want   []int // newest-first positions, over every page
		pages  int   // at most
	}{
		"rare status: pages until the end":    {filter: email.Filter{Status: email.StatusBounced}, limit: 10, want: bounced, pages: 4},
		"no match: empty pages until the end": {filter: email.Filter{Status: email.StatusComplained}, limit: 10, pages: 4},
		"common status: pages in order":       {filter: email.Filter{Status: email.StatusDelivered}, limit: 3, want: []int{0, 1, 2, 3, 4, 6}, pages: 2},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			counter := &dynamotest.ScanCounter{DB: store.Table.DB}
			s := emaildb.Emails{Table: &dynamo.Table{DB: counter, Name: store.Table.Name}}
			after := ""
			var positions []int
			for n := range tc.pages {
				got, next, more, err := s.ListEmails(ctx, ws, tc.filter, after, tc.limit)
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range got {
					positions = append(positions, total-1-slices.Index(ids, e.ID))
				}
				if examined := counter.Take(); examined > 1000 {
					t.Errorf("page %d examined %d emails, over the budget of 1000", n+1, examined)
				}
				if more == (next == "") {
					t.Fatalf("page %d: has_more %v with cursor %q", n+1, more, next)
				}
				if !more {
					break
				}
				after = next
			}
			if !slices.Equal(positions, tc.want) {
				t.Errorf("pages = %v, want %v", positions, tc.want)
			}
		})
	}
}
