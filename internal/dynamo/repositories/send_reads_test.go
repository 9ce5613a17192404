package repositories_test

import (
	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
	"github.com/sesame-mail/sesame/internal/dynamo/sendingdb"
	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/sending/contextcache"
	"github.com/sesame-mail/sesame/internal/status"
	"github.com/sesame-mail/sesame/internal/suppression"
	"slices"
	"testing"
	"time"
)

// The month's usage is counted over shards (a random one a status batch)
// and the item before the shards still counts: a send, a campaign and the
// exact read all see the whole sum.
func TestUsageShardsSum(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	store, _ := dynamotest.NewStore(t)
	w, err := store.Workspaces.CreateWorkspace(ctx, "Usage")
	if err != nil {
		t.Fatal(err)
	}
	const month = "2026-11"
	putOld(t, store, map[string]any{"pk": "WS#" + w.ID + "#USAGE", "sk": month, "sent": 7})
	for range 40 { // 40 batches of 3: spread over the shards
		if err := store.Statuses.Count(ctx, status.Tally{{Kind: status.MonthlyUsage, WorkspaceID: w.ID, Key: month}: {"sent": 3}}); err != nil {
			t.Fatal(err)
		}
	}
	const want = 7 + 40*3
	for name, read := range map[string]func() (int, error){
		"Sends.MonthlyUsage":     func() (int, error) { return store.Sends.MonthlyUsage(ctx, w.ID, month) },
		"ListSends.MonthlyUsage": func() (int, error) { return store.ListSends.MonthlyUsage(ctx, w.ID, month) },
		"LoadContext": func() (int, error) {
			c, err := store.Sends.LoadContext(ctx, sending.ContextQuery{WorkspaceID: w.ID, Recipient: "a@example.com", Fingerprint: "x", Month: month, ReadUsage: true})
			return c.MonthlySent, err
		},
	} {
		if got, err := read(); err != nil || got != want {
			t.Errorf("%s = %d, %v; want %d", name, got, err, want)
		}
	}
	c, err := store.Sends.LoadContext(ctx, sending.ContextQuery{WorkspaceID: w.ID, Recipient: "a@example.com", Fingerprint: "x", Month: month})
	if err != nil || c.MonthlySent != 0 {
		t.Errorf("usage not asked for: %d, %v; want 0 (not read)", c.MonthlySent, err)
	}
}

// A stack upgraded from the unsharded do-not-send list honours its old
// entries wherever a send or a list reads them, and deletes them; once
// none is left, OldSuppressions says so and a send may skip the old
// partition.
func TestUpgradedSuppressions(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	store, _ := dynamotest.NewStore(t)
	w, err := store.Workspaces.CreateWorkspace(ctx, "Upgraded")
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	putOld(t, store, map[string]any{"pk": "WS#" + w.ID + "#SUPPRESSION", "sk": "old@example.com",
		"gsi1pk": "WS#" + w.ID + "#SUPPRESSIONS", "gsi1sk": at.Format("2006-01-02T15:04:05.000000000Z") + "#old@example.com",
		"email": "old@example.com", "reason": "bounced", "created_at": at})
	if _, added, err := store.Suppressions.PutSuppression(ctx, w.ID, suppression.Suppression{Email: "New@Example.com", Reason: "manual"}); err != nil || !added {
		t.Fatalf("put: %v %v", added, err)
	}
	if old, err := store.Sends.OldSuppressions(ctx, w.ID); err != nil || !old {
		t.Errorf("OldSuppressions = %v, %v; want true", old, err)
	}
	for _, addr := range []string{"old@example.com", "new@example.com"} {
		c, err := store.Sends.LoadContext(ctx, sending.ContextQuery{WorkspaceID: w.ID, Recipient: addr, Fingerprint: "x", Month: "2026-11"})
		if err != nil || !c.Suppressed {
			t.Errorf("send to %s: suppressed %v, %v", addr, c.Suppressed, err)
		}
		if ok, err := store.Suppressions.Suppressed(ctx, w.ID, addr); err != nil || !ok {
			t.Errorf("Suppressed(%s) = %v, %v", addr, ok, err)
		}
	}
	c, err := store.Sends.LoadContext(ctx, sending.ContextQuery{WorkspaceID: w.ID, Recipient: "old@example.com", Fingerprint: "x", Month: "2026-11", NoOldSuppressions: true})
	if err != nil || c.Suppressed {
		t.Errorf("the old partition skipped: suppressed %v, %v; want false (what the skip means)", c.Suppressed, err)
	}
	list, _, _, err := store.Suppressions.ListSuppressions(ctx, w.ID, suppression.Filter{}, "", 1)
	if err != nil || len(list) != 1 {
		t.Fatalf("list page 1: %v %v", list, err)
	}
	var all []string
	if err := store.Suppressions.EachSuppressedAddress(ctx, w.ID, func(a string) error { all = append(all, a); return nil }); err != nil {
		t.Fatal(err)
	}
	slices.Sort(all)
	if !slices.Equal(all, []string{"new@example.com", "old@example.com"}) {
		t.Errorf("every address = %v", all)
	}
	// Added again after the upgrade, an old address is in both places; a
	// delete removes both.
	if _, _, err := store.Suppressions.PutSuppression(ctx, w.ID, suppression.Suppression{Email: "old@example.com", Reason: "manual"}); err != nil {
		t.Fatal(err)
	}
	if got, err := store.Suppressions.DeleteSuppression(ctx, w.ID, "old@example.com"); err != nil || got.Email != "old@example.com" {
		t.Fatalf("delete the old entry: %+v %v", got, err)
	}
	if ok, err := store.Suppressions.Suppressed(ctx, w.ID, "old@example.com"); err != nil || ok {
		t.Errorf("after the delete Suppressed = %v, %v; want false", ok, err)
	}
	if old, err := store.Sends.OldSuppressions(ctx, w.ID); err != nil || old {
		t.Errorf("after the delete OldSuppressions = %v, %v; want false", old, err)
	}
	if _, err := store.Suppressions.DeleteSuppression(ctx, w.ID, "old@example.com"); err != suppression.ErrNotFound {
		t.Errorf("second delete: %v, want not found", err)
	}
}

var _ contextcache.SuppressionLayout = (*sendingdb.Sends)(nil)
