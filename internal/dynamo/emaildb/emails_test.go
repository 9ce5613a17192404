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

// An email's id and workspace are read off its keys: an email written
// with them as attributes too (before) reads the same as one written now,
// at its shard and where the layout before the shards kept it.
func TestEmailIdentityFromKeys(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	store, _ := dynamotest.NewStore(t)
	s := emaildb.Emails{Table: store.Table}
	ws := uuid.NewString()
	sent := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	newEmail := func() email.Email {
		return email.Email{ID: uuid.Must(uuid.NewV7()).String(), WorkspaceID: ws, To: "a@example.com", Subject: "Hi",
			Status: email.StatusSent, Type: email.TypeTransactional, Environment: apikey.Live, SentAt: sent}
	}
	now := newEmail()
	if err := s.PutEmail(ctx, now); err != nil {
		t.Fatal(err)
	}
	type oldItem struct {
		emaildb.EmailItem
		ID          string `dynamodbav:"id"`
		WorkspaceID string `dynamodbav:"workspace_id"`
	}
	before, legacy := newEmail(), newEmail()
	for _, c := range []struct {
		e  email.Email
		pk string
	}{{before, dynamo.EmailPK(ws, before.ID)}, {legacy, dynamo.LegacyEmailPK(ws)}} {
		it := emaildb.NewEmailItem(c.e)
		it.PK = c.pk
		if err := store.Table.PutItem(ctx, oldItem{EmailItem: it, ID: c.e.ID, WorkspaceID: ws}, dynamo.NoCondition); err != nil {
			t.Fatal(err)
		}
	}
	for name, want := range map[string]email.Email{"written now": now, "written before": before, "before the shards": legacy} {
		got, err := s.GetEmail(ctx, ws, want.ID)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got.ID != want.ID || got.WorkspaceID != ws || got.To != want.To || !got.SentAt.Equal(sent) {
			t.Errorf("%s: read %+v, want %+v", name, got, want)
		}
	}
	list, _, _, err := s.ListEmails(ctx, ws, email.Filter{}, "", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 3 {
		t.Fatalf("listed %d emails, want 3", len(list))
	}
	for _, e := range list {
		if e.WorkspaceID != ws || (e.ID != now.ID && e.ID != before.ID && e.ID != legacy.ID) {
			t.Errorf("listed %s of workspace %q", e.ID, e.WorkspaceID)
		}
	}
}
