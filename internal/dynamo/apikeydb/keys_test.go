package apikeydb_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
	"github.com/sesame-mail/sesame/internal/workspace"
)

func TestKeyLifecycle(t *testing.T) {
	ctx := t.Context()
	store, _ := dynamotest.NewStore(t)
	ws, err := store.Workspaces.CreateWorkspace(ctx, "Acme")
	if err != nil {
		t.Fatal(err)
	}
	scopes := []apikey.Scope{apikey.EmailsRead, apikey.EmailSendBulk}
	plain, k, err := store.Keys.CreateKey(ctx, ws.ID, apikey.Test, "ci", scopes)
	if err != nil {
		t.Fatal(err)
	}
	p, err := store.Keys.Authenticate(ctx, plain, apikey.Test)
	if err != nil {
		t.Fatal(err)
	}
	if p.WorkspaceID != ws.ID || p.KeyID != k.ID || p.Environment != apikey.Test || len(p.Scopes) != 2 {
		t.Fatalf("principal = %+v", p)
	}
	if _, err := store.Keys.Authenticate(ctx, plain, apikey.Live); !errors.Is(err, apikey.ErrUnknownKey) {
		t.Errorf("key used with the other environment: err = %v", err)
	}

	fresh, k2, err := store.Keys.RegenerateKey(ctx, ws.ID, k.ID)
	if err != nil {
		t.Fatal(err)
	}
	if fresh == plain || k2.ID != k.ID {
		t.Fatalf("regenerate gave %q (id %s)", fresh, k2.ID)
	}
	if _, err := store.Keys.Authenticate(ctx, plain, apikey.Test); !errors.Is(err, apikey.ErrUnknownKey) {
		t.Errorf("old key after regenerate: err = %v, want ErrUnknownKey", err)
	}
	p2, err := store.Keys.Authenticate(ctx, fresh, apikey.Test)
	if err != nil {
		t.Fatal(err)
	}
	if len(p2.Scopes) != 2 || !p2.Has(apikey.EmailSendBulk) {
		t.Errorf("regenerated key scopes = %v, want the original ones", p2.Scopes)
	}

	if err := store.Keys.RevokeKey(ctx, ws.ID, k.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Keys.Authenticate(ctx, fresh, apikey.Test); !errors.Is(err, apikey.ErrUnknownKey) {
		t.Errorf("revoked key: err = %v, want ErrUnknownKey", err)
	}
	if err := store.Keys.RevokeKey(ctx, ws.ID, k.ID); !errors.Is(err, apikey.ErrRevoked) {
		t.Errorf("revoke twice: err = %v, want ErrRevoked", err)
	}
	if _, _, err := store.Keys.RegenerateKey(ctx, ws.ID, k.ID); !errors.Is(err, apikey.ErrRevoked) {
		t.Errorf("regenerate revoked: err = %v, want ErrRevoked", err)
	}
	keys, err := store.Keys.ListKeys(ctx, ws.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 1 || keys[0].RevokedAt == nil {
		t.Errorf("keys = %+v, want one revoked key", keys)
	}
}

func TestKeyErrors(t *testing.T) {
	ctx := t.Context()
	store, _ := dynamotest.NewStore(t)
	if _, _, err := store.Keys.CreateKey(ctx, "no-such-workspace", apikey.Live, "", nil); !errors.Is(err, workspace.ErrNotFound) {
		t.Errorf("key for absent workspace: err = %v", err)
	}
	ws, err := store.Workspaces.CreateWorkspace(ctx, "A")
	if err != nil {
		t.Fatal(err)
	}
	other, err := store.Workspaces.CreateWorkspace(ctx, "B")
	if err != nil {
		t.Fatal(err)
	}
	_, k, err := store.Keys.CreateKey(ctx, ws.ID, apikey.Live, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	// A key id is only reachable through its own workspace.
	if _, _, err := store.Keys.RegenerateKey(ctx, other.ID, k.ID); !errors.Is(err, apikey.ErrKeyNotFound) {
		t.Errorf("regenerate through another workspace: err = %v", err)
	}
	if err := store.Keys.RevokeKey(ctx, other.ID, k.ID); !errors.Is(err, apikey.ErrKeyNotFound) {
		t.Errorf("revoke through another workspace: err = %v", err)
	}
	if _, err := store.Keys.Authenticate(ctx, apikey.Generate(apikey.Live), apikey.Live); !errors.Is(err, apikey.ErrUnknownKey) {
		t.Errorf("unknown key: err = %v", err)
	}
}

func TestLegacyKeyHasFullAccess(t *testing.T) {
	ctx := t.Context()
	store, _ := dynamotest.NewStore(t)
	ws, err := store.Workspaces.CreateWorkspace(ctx, "Old")
	if err != nil {
		t.Fatal(err)
	}
	plain, _, err := store.Keys.CreateKey(ctx, ws.ID, apikey.Live, "pre-scopes", nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := store.Keys.Authenticate(ctx, plain, apikey.Live)
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
	ctx := t.Context()
	store, rec := dynamotest.NewStore(t)
	clock := dynamotest.NewClock(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))
	store.Table.Now = clock.Now
	ws, err := store.Workspaces.CreateWorkspace(ctx, "Busy")
	if err != nil {
		t.Fatal(err)
	}
	plain, _, err := store.Keys.CreateKey(ctx, ws.ID, apikey.Live, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	rec.Reset()
	for i := 1; i <= apikey.RequestsPerMinute; i++ {
		if _, err := store.Keys.Authenticate(ctx, plain, apikey.Live); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	if got := rec.Total(); got != apikey.RequestsPerMinute {
		t.Errorf("%d requests took %d DynamoDB calls, want one each", apikey.RequestsPerMinute, got)
	}
	clock.Set(clock.Now().Add(45 * time.Second))
	_, err = store.Keys.Authenticate(ctx, plain, apikey.Live)
	var limited *apikey.RateLimitedError
	if !errors.As(err, &limited) {
		t.Fatalf("request 1001: err = %v, want rate limited", err)
	}
	if limited.RetryAfter != 15*time.Second {
		t.Errorf("RetryAfter = %v, want the 15s left in the window", limited.RetryAfter)
	}
	clock.Set(time.Date(2026, 11, 22, 10, 1, 0, 0, time.UTC))
	if _, err := store.Keys.Authenticate(ctx, plain, apikey.Live); err != nil {
		t.Errorf("first request of the next window: %v", err)
	}
	// After an idle gap the old window counters are pruned from the item.
	clock.Set(time.Date(2026, 11, 22, 10, 30, 0, 0, time.UTC))
	rec.Reset()
	if _, err := store.Keys.Authenticate(ctx, plain, apikey.Live); err != nil {
		t.Fatal(err)
	}
	if got := rec.Calls("UpdateItem"); got != 2 {
		t.Errorf("first request after a gap made %d UpdateItem calls, want 2 (count + prune)", got)
	}
	rec.Reset()
	if _, err := store.Keys.Authenticate(ctx, plain, apikey.Live); err != nil {
		t.Fatal(err)
	}
	if got := rec.Total(); got != 1 {
		t.Errorf("next request made %d calls, want 1", got)
	}
}

// Keys are stored only as their SHA-256 hash: after creating a key, using
// it and regenerating it, no attribute anywhere in the table holds the key
// or its secret part, while the hash of the current key is there.
func TestKeysStoredOnlyAsHashes(t *testing.T) {
	ctx := t.Context()
	cases := map[string]struct {
		env    apikey.Environment
		scopes []apikey.Scope
	}{
		"live key without scopes": {env: apikey.Live},
		"test key with scopes":    {env: apikey.Test, scopes: []apikey.Scope{apikey.EmailsRead, apikey.EmailSendBulk}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			store, _ := dynamotest.NewStore(t)
			ws, err := store.Workspaces.CreateWorkspace(ctx, "Acme")
			if err != nil {
				t.Fatal(err)
			}
			plain, k, err := store.Keys.CreateKey(ctx, ws.ID, tc.env, "ci", tc.scopes)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := store.Keys.Authenticate(ctx, plain, tc.env); err != nil {
				t.Fatal(err)
			}
			strs := tableStrings(t, store.Table.Name)
			assertOnlyHashStored(t, "after CreateKey", strs, plain, true)

			fresh, _, err := store.Keys.RegenerateKey(ctx, ws.ID, k.ID)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := store.Keys.Authenticate(ctx, fresh, tc.env); err != nil {
				t.Fatal(err)
			}
			strs = tableStrings(t, store.Table.Name)
			assertOnlyHashStored(t, "after RegenerateKey", strs, fresh, true)
			// The replaced key leaves nothing behind, not even its hash.
			assertOnlyHashStored(t, "after RegenerateKey (old key)", strs, plain, false)
		})
	}
}

// assertOnlyHashStored checks that no stored string contains the secret
// part of plain (and so neither plain itself), and that the key's hash is
// stored, or not, as wantHash says.
func assertOnlyHashStored(t *testing.T, when string, strs []string, plain string, wantHash bool) {
	t.Helper()
	secret := plain[strings.LastIndex(plain, "_")+1:]
	if len(secret) != 40 {
		t.Fatalf("secret part of %q is %q, want 40 characters", plain, secret)
	}
	hash := apikey.Hash(plain)
	hashFound := false
	for _, s := range strs {
		if strings.Contains(s, secret) {
			t.Errorf("%s: the table holds the plain key in %q, want only its hash", when, s)
		}
		if strings.Contains(s, hash) {
			hashFound = true
		}
	}
	if hashFound != wantHash {
		t.Errorf("%s: hash %s stored = %v, want %v", when, hash, hashFound, wantHash)
	}
}

// tableStrings scans the whole table and returns every attribute name and
// every string, number and binary value in it, nested ones included.
func tableStrings(t *testing.T, table string) []string {
	t.Helper()
	var out []string
	var walk func(ddbtypes.AttributeValue)
	walk = func(v ddbtypes.AttributeValue) {
		switch v := v.(type) {
		case *ddbtypes.AttributeValueMemberS:
			out = append(out, v.Value)
		case *ddbtypes.AttributeValueMemberN:
			out = append(out, v.Value)
		case *ddbtypes.AttributeValueMemberB:
			out = append(out, string(v.Value))
		case *ddbtypes.AttributeValueMemberSS:
			out = append(out, v.Value...)
		case *ddbtypes.AttributeValueMemberNS:
			out = append(out, v.Value...)
		case *ddbtypes.AttributeValueMemberBS:
			for _, b := range v.Value {
				out = append(out, string(b))
			}
		case *ddbtypes.AttributeValueMemberL:
			for _, e := range v.Value {
				walk(e)
			}
		case *ddbtypes.AttributeValueMemberM:
			for name, e := range v.Value {
				out = append(out, name)
				walk(e)
			}
		}
	}
	items := dynamotest.Items(t, table)
	if len(items) == 0 {
		t.Fatal("scanned an empty table")
	}
	for _, item := range items {
		walk(&ddbtypes.AttributeValueMemberM{Value: item})
	}
	return out
}

// Regenerating a key starts a fresh rate-limit window: the new key is
// accepted in the same minute the old one used up, and the old key is
// refused as unknown, not as rate limited.
func TestRegenerateStartsFreshWindow(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	store, _ := dynamotest.NewStore(t)
	clock := dynamotest.NewClock(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))
	store.Table.Now = clock.Now
	ws, err := store.Workspaces.CreateWorkspace(ctx, "Busy")
	if err != nil {
		t.Fatal(err)
	}
	plain, k, err := store.Keys.CreateKey(ctx, ws.ID, apikey.Live, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	dynamotest.Each(t, 0, apikey.RequestsPerMinute, func(i int) error {
		if _, err := store.Keys.Authenticate(ctx, plain, apikey.Live); err != nil {
			return fmt.Errorf("request %d: %w", i+1, err)
		}
		return nil
	})
	clock.Set(clock.Now().Add(20 * time.Second))
	var limited *apikey.RateLimitedError
	if _, err := store.Keys.Authenticate(ctx, plain, apikey.Live); !errors.As(err, &limited) {
		t.Fatalf("request %d: err = %v, want rate limited", apikey.RequestsPerMinute+1, err)
	}

	fresh, _, err := store.Keys.RegenerateKey(ctx, ws.ID, k.ID)
	if err != nil {
		t.Fatal(err)
	}
	clock.Set(clock.Now().Add(10 * time.Second)) // still 10:00
	p, err := store.Keys.Authenticate(ctx, fresh, apikey.Live)
	if err != nil {
		t.Fatalf("regenerated key in the same minute: err = %v, want accepted (a fresh window)", err)
	}
	if p.KeyID != k.ID || p.WorkspaceID != ws.ID {
		t.Errorf("principal = %+v, want key %s of workspace %s", p, k.ID, ws.ID)
	}
	if _, err := store.Keys.Authenticate(ctx, plain, apikey.Live); !errors.Is(err, apikey.ErrUnknownKey) {
		t.Errorf("old key after regenerate: err = %v, want ErrUnknownKey", err)
	}
}
