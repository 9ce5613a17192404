package dynamo_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
	"github.com/sesame-mail/sesame/internal/workspace"
)

func TestKeyLifecycle(t *testing.T) {
	ctx := context.Background()
	store, _ := dynamotest.NewStore(t)
	ws, err := store.CreateWorkspace(ctx, "Acme")
	if err != nil {
		t.Fatal(err)
	}
	scopes := []apikey.Scope{apikey.EmailsRead, apikey.EmailSendBulk}
	plain, k, err := store.CreateKey(ctx, ws.ID, apikey.Test, "ci", scopes)
	if err != nil {
		t.Fatal(err)
	}
	p, err := store.Authenticate(ctx, plain, apikey.Test)
	if err != nil {
		t.Fatal(err)
	}
	if p.WorkspaceID != ws.ID || p.KeyID != k.ID || p.Environment != apikey.Test || len(p.Scopes) != 2 {
		t.Fatalf("principal = %+v", p)
	}
	if _, err := store.Authenticate(ctx, plain, apikey.Live); !errors.Is(err, apikey.ErrUnknownKey) {
		t.Errorf("key used with the other environment: err = %v", err)
	}

	fresh, k2, err := store.RegenerateKey(ctx, ws.ID, k.ID)
	if err != nil {
		t.Fatal(err)
	}
	if fresh == plain || k2.ID != k.ID {
		t.Fatalf("regenerate gave %q (id %s)", fresh, k2.ID)
	}
	if _, err := store.Authenticate(ctx, plain, apikey.Test); !errors.Is(err, apikey.ErrUnknownKey) {
		t.Errorf("old key after regenerate: err = %v, want ErrUnknownKey", err)
	}
	p2, err := store.Authenticate(ctx, fresh, apikey.Test)
	if err != nil {
		t.Fatal(err)
	}
	if len(p2.Scopes) != 2 || !p2.Has(apikey.EmailSendBulk) {
		t.Errorf("regenerated key scopes = %v, want the original ones", p2.Scopes)
	}

	if err := store.RevokeKey(ctx, ws.ID, k.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Authenticate(ctx, fresh, apikey.Test); !errors.Is(err, apikey.ErrUnknownKey) {
		t.Errorf("revoked key: err = %v, want ErrUnknownKey", err)
	}
	if err := store.RevokeKey(ctx, ws.ID, k.ID); !errors.Is(err, apikey.ErrRevoked) {
		t.Errorf("revoke twice: err = %v, want ErrRevoked", err)
	}
	if _, _, err := store.RegenerateKey(ctx, ws.ID, k.ID); !errors.Is(err, apikey.ErrRevoked) {
		t.Errorf("regenerate revoked: err = %v, want ErrRevoked", err)
	}
	keys, err := store.ListKeys(ctx, ws.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 1 || keys[0].RevokedAt == nil {
		t.Errorf("keys = %+v, want one revoked key", keys)
	}
}

func TestKeyErrors(t *testing.T) {
	ctx := context.Background()
	store, _ := dynamotest.NewStore(t)
	if _, _, err := store.CreateKey(ctx, "no-such-workspace", apikey.Live, "", nil); !errors.Is(err, workspace.ErrNotFound) {
		t.Errorf("key for absent workspace: err = %v", err)
	}
	ws, err := store.CreateWorkspace(ctx, "A")
	if err != nil {
		t.Fatal(err)
	}
	other, err := store.CreateWorkspace(ctx, "B")
	if err != nil {
		t.Fatal(err)
	}
	_, k, err := store.CreateKey(ctx, ws.ID, apikey.Live, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	// A key id is only reachable through its own workspace.
	if _, _, err := store.RegenerateKey(ctx, other.ID, k.ID); !errors.Is(err, apikey.ErrKeyNotFound) {
		t.Errorf("regenerate through another workspace: err = %v", err)
	}
	if err := store.RevokeKey(ctx, other.ID, k.ID); !errors.Is(err, apikey.ErrKeyNotFound) {
		t.Errorf("revoke through another workspace: err = %v", err)
	}
	if _, err := store.Authenticate(ctx, apikey.Generate(apikey.Live), apikey.Live); !errors.Is(err, apikey.ErrUnknownKey) {
		t.Errorf("unknown key: err = %v", err)
	}
}

func TestLegacyKeyHasFullAccess(t *testing.T) {
	ctx := context.Background()
	store, _ := dynamotest.NewStore(t)
	ws, err := store.CreateWorkspace(ctx, "Old")
	if err != nil {
		t.Fatal(err)
	}
	plain, _, err := store.CreateKey(ctx, ws.ID, apikey.Live, "pre-scopes", nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := store.Authenticate(ctx, plain, apikey.Live)
	if err != nil {
		t.Fatal(err)
	}
	if p.Scopes != nil {
		t.Fatalf("legacy key scopes = %v, want nil", p.Scopes)
	}
	for _, s := range apikey.AllScopes {
		if got := p.Has(s); got == s.Deliberate() {
			t.Errorf("legacy key Has(%s) = %v", s, got)
		}
	}
}

func TestRateLimitWindow(t *testing.T) {
	ctx := context.Background()
	store, rec := dynamotest.NewStore(t)
	clock := dynamotest.NewClock(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))
	store.Now = clock.Now
	ws, err := store.CreateWorkspace(ctx, "Busy")
	if err != nil {
		t.Fatal(err)
	}
	plain, _, err := store.CreateKey(ctx, ws.ID, apikey.Live, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	rec.Reset()
	for i := 1; i <= apikey.RequestsPerMinute; i++ {
		if _, err := store.Authenticate(ctx, plain, apikey.Live); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	if got := rec.Total(); got != apikey.RequestsPerMinute {
		t.Errorf("%d requests took %d DynamoDB calls, want one each", apikey.RequestsPerMinute, got)
	}
	clock.Set(clock.Now().Add(45 * time.Second))
	_, err = store.Authenticate(ctx, plain, apikey.Live)
	var limited *apikey.RateLimitedError
	if !errors.As(err, &limited) {
		t.Fatalf("request 1001: err = %v, want rate limited", err)
	}
	if limited.RetryAfter != 15*time.Second {
		t.Errorf("RetryAfter = %v, want the 15s left in the window", limited.RetryAfter)
	}
	clock.Set(time.Date(2026, 11, 22, 10, 1, 0, 0, time.UTC))
	if _, err := store.Authenticate(ctx, plain, apikey.Live); err != nil {
		t.Errorf("first request of the next window: %v", err)
	}
	// After an idle gap the old window counters are pruned from the item.
	clock.Set(time.Date(2026, 11, 22, 10, 30, 0, 0, time.UTC))
	rec.Reset()
	if _, err := store.Authenticate(ctx, plain, apikey.Live); err != nil {
		t.Fatal(err)
	}
	if got := rec.Calls("UpdateItem"); got != 2 {
		t.Errorf("first request after a gap made %d UpdateItem calls, want 2 (count + prune)", got)
	}
	rec.Reset()
	if _, err := store.Authenticate(ctx, plain, apikey.Live); err != nil {
		t.Fatal(err)
	}
	if got := rec.Total(); got != 1 {
		t.Errorf("next request made %d calls, want 1", got)
	}
}
