package emaildb_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
	"github.com/sesame-mail/sesame/internal/dynamo/repositories"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/status"
)

// The click list holds the MaxClicks newest clicks; only past that does it
// say truncated.
func TestListClicksTruncated(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	if email.MaxClicks != 1000 {
		t.Fatalf("MaxClicks = %d, want the spec's 1,000", email.MaxClicks)
	}
	store, _ := dynamotest.NewStore(t)
	ws, emailID := uuid.NewString(), uuid.Must(uuid.NewV7()).String()
	base := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	clickAt := func(i int) time.Time { return base.Add(time.Duration(i) * time.Second) }
	recordClicks(t, store, ws, emailID, 0, email.MaxClicks, clickAt)

	clicks, truncated, err := store.Clicks.ListClicks(ctx, ws, emailID, email.MaxClicks)
	if err != nil {
		t.Fatal(err)
	}
	if len(clicks) != email.MaxClicks || truncated {
		t.Fatalf("exactly %d clicks: got %d, truncated %v; want all %d, not truncated", email.MaxClicks, len(clicks), truncated, email.MaxClicks)
	}

	recordClicks(t, store, ws, emailID, email.MaxClicks, email.MaxClicks+1, clickAt)
	clicks, truncated, err = store.Clicks.ListClicks(ctx, ws, emailID, email.MaxClicks)
	if err != nil {
		t.Fatal(err)
	}
	if len(clicks) != email.MaxClicks || !truncated {
		t.Fatalf("%d clicks: got %d, truncated %v; want %d, truncated", email.MaxClicks+1, len(clicks), truncated, email.MaxClicks)
	}
	// Newest first: the newest click leads and the oldest is the one left out.
	for j, c := range clicks {
		if i := email.MaxClicks - j; !c.ClickedAt.Equal(clickAt(i)) || c.URL != clickURL(i) {
			t.Fatalf("click %d = %s at %v, want %s at %v (newest first, the oldest left out)", j, c.URL, c.ClickedAt, clickURL(i), clickAt(i))
		}
	}
}

func clickURL(i int) string { return fmt.Sprintf("https://example.com/link/%d", i) }

// recordClicks records clicks from..to-1 of the email through Apply, as
// the status pipeline does.
func recordClicks(t *testing.T, store repositories.Set, ws, emailID string, from, to int, at func(int) time.Time) {
	t.Helper()
	dynamotest.Each(t, from, to, func(i int) error {
		return store.Statuses.Apply(t.Context(), status.Change{
			WorkspaceID: ws, EmailID: emailID, DedupeID: fmt.Sprintf("click-%d", i), OccurredAt: at(i),
			Click: &status.ClickRecord{ID: fmt.Sprintf("c%d", i), EmailID: emailID, URL: clickURL(i), UserAgent: "test", ClickedAt: at(i)},
		})
	})
}
