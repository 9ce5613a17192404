package segmentdb_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
	"github.com/sesame-mail/sesame/internal/segment"
	"github.com/sesame-mail/sesame/internal/suppression"
)

func TestSegmentLifecycle(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	store, _ := dynamotest.NewStore(t)
	t.Cleanup(func() { dynamotest.CheckKeyLayout(t, store.Table.Name) })
	acme, err := store.Workspaces.CreateWorkspace(ctx, "Acme")
	if err != nil {
		t.Fatal(err)
	}
	beta, err := store.Workspaces.CreateWorkspace(ctx, "Beta")
	if err != nil {
		t.Fatal(err)
	}
	filter, err := segment.Parse(json.RawMessage(`{"all":[{"field":"tags","op":"has_tag","value":"vip"},{"not":{"field":"properties.plan","op":"in","value":["free",0]}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i := range 2 {
		seg := segment.Segment{
			ID: uuid.Must(uuid.NewV7()).String(), WorkspaceID: acme.ID, Name: fmt.Sprintf("VIPs %d", i), Filter: filter,
			ContactCount: 7 + i, CreatedAt: time.Date(2026, 3, 15, 12, 0, i, 0, time.UTC),
		}
		if err := store.Segments.CreateSegment(ctx, seg); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, seg.ID)
	}
	got, err := store.Segments.GetSegment(ctx, acme.ID, ids[0])
	if err != nil {
		t.Fatal(err)
	}
	gotJSON, _ := json.Marshal(got.View())
	want := `{"id":"` + ids[0] + `","name":"VIPs 0","filter":{"all":[{"field":"tags","op":"has_tag","value":"vip"},{"not":{"field":"properties.plan","op":"in","value":["free",0]}}]},"contact_count":7,"created_at":"2026-03-15T12:00:00.000Z"}`
	if string(gotJSON) != want || got.WorkspaceID != acme.ID {
		t.Errorf("read back\n %s\nwant\n %s", gotJSON, want)
	}
	list, err := store.Segments.ListSegments(ctx, acme.ID)
	if err != nil || len(list) != 2 || list[0].ID != ids[0] || list[1].ID != ids[1] {
		t.Errorf("list = %+v, %v; want both, oldest first", list, err)
	}

	// Another workspace cannot see or remove them.
	if _, err := store.Segments.GetSegment(ctx, beta.ID, ids[0]); !errors.Is(err, segment.ErrNotFound) {
		t.Errorf("get from another workspace: err = %v", err)
	}
	if err := store.Segments.DeleteSegment(ctx, beta.ID, ids[0]); !errors.Is(err, segment.ErrNotFound) {
		t.Errorf("delete from another workspace: err = %v", err)
	}
	if l, err := store.Segments.ListSegments(ctx, beta.ID); err != nil || len(l) != 0 {
		t.Errorf("another workspace lists %v (err %v)", l, err)
	}

	if err := store.Segments.DeleteSegment(ctx, acme.ID, ids[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Segments.GetSegment(ctx, acme.ID, ids[0]); !errors.Is(err, segment.ErrNotFound) {
		t.Errorf("get after delete: err = %v", err)
	}
	if err := store.Segments.DeleteSegment(ctx, acme.ID, ids[0]); !errors.Is(err, segment.ErrNotFound) {
		t.Errorf("second delete: err = %v", err)
	}
}

// The do-not-send list is read whole, a page at a time, addresses only.
func TestEachSuppressedAddress(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	store, rec := dynamotest.NewStore(t)
	acme, err := store.Workspaces.CreateWorkspace(ctx, "Acme")
	if err != nil {
		t.Fatal(err)
	}
	other, err := store.Workspaces.CreateWorkspace(ctx, "Other")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for i := range 30 {
		addr := fmt.Sprintf("user%02d@example.test", i)
		want = append(want, addr)
		if _, _, err := store.Suppressions.PutSuppression(ctx, acme.ID, suppression.Suppression{Email: addr, Reason: suppression.Manual}); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := store.Suppressions.PutSuppression(ctx, other.ID, suppression.Suppression{Email: "foreign@example.test", Reason: suppression.Manual}); err != nil {
		t.Fatal(err)
	}
	rec.Reset()
	var got []string
	err = store.Suppressions.EachSuppressedAddress(ctx, acme.ID, func(a string) error {
		got = append(got, a)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("addresses %v, want %v", got, want)
	}
	if n := rec.Calls("Query"); n != 1 {
		t.Errorf("%d queries, want 1", n)
	}
	stop := errors.New("stop")
	calls := 0
	err = store.Suppressions.EachSuppressedAddress(ctx, acme.ID, func(string) error { calls++; return stop })
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("err %v after %d calls, want stop after 1", err, calls)
	}
}
