package main

import (
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// createdKey reads the text that `keys create` and `keys regenerate` print:
// the key on the first line, then its id.
func createdKey(t *testing.T, out string, env apikey.Environment) (key, id string) {
	t.Helper()
	key, _, _ = strings.Cut(out, "\n")
	if e, ok := apikey.Parse(key); !ok || e != env {
		t.Fatalf("first line %q is not a %s key:\n%s", key, env, out)
	}
	if n := strings.Count(out, key); n != 1 {
		t.Errorf("the key appears %d times in the output, want once", n)
	}
	if !strings.Contains(out, "shown only this once") {
		t.Errorf("no warning that the key is shown once:\n%s", out)
	}
	m := idLine.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no id line in:\n%s", out)
	}
	return key, m[1]
}

func TestKeysLifecycle(t *testing.T) {
	ctx := t.Context()
	c := newConsoleTable(t)
	ws := c.createWorkspace("Acme")
	readScopes, err := apikey.Resolve(apikey.PresetRead, nil)
	if err != nil {
		t.Fatal(err)
	}

	// A test key with the read preset, printed as text.
	out := c.must("keys", "create", "--workspace", ws, "--env", "test", "--preset", "read")
	testKey, testID := createdKey(t, out, apikey.Test)
	if !strings.HasPrefix(testKey, "ps_test_") {
		t.Fatalf("key %q lacks the ps_test_ prefix", testKey)
	}
	p, err := c.store.Keys.Authenticate(ctx, testKey, apikey.Test)
	if err != nil {
		t.Fatalf("the printed key does not authenticate: %v", err)
	}
	if p.WorkspaceID != ws || p.KeyID != testID || !slices.Equal(p.Scopes, readScopes) {
		t.Errorf("principal = %+v, want workspace %s, key %s, scopes %v", p, ws, testID, readScopes)
	}

	// A live key with the send preset, printed as JSON.
	live, raw := mustJSON[apikey.CreatedKey](c, "keys", "create", "--workspace", ws, "--preset", "send", "--name", "ci")
	if e, ok := apikey.Parse(live.Key); !ok || e != apikey.Live {
		t.Fatalf("JSON key = %q, want a live key (the default env)", live.Key)
	}
	if r := live.Record; r.ID == "" || r.WorkspaceID != ws || r.Name != "ci" || r.Environment != apikey.Live ||
		!slices.Equal(r.Scopes, []apikey.Scope{apikey.EmailSend}) || r.Hint != apikey.Hint(live.Key) || r.RevokedAt != nil {
		t.Errorf("JSON record = %+v", r)
	}
	if strings.Contains(raw, apikey.Hash(live.Key)) {
		t.Errorf("keys create --output json prints the key's hash:\n%s", raw)
	}

	// Listings show hints, never a key or its hash.
	secrets := func(keys ...string) []string {
		var out []string
		for _, k := range keys {
			out = append(out, k, apikey.Hash(k))
		}
		return out
	}
	checkList := func(t *testing.T, wantHints []string, secret []string) []apikey.Key {
		t.Helper()
		text := c.must("keys", "list", "--workspace", ws)
		keys, raw := mustJSON[[]apikey.Key](c, "keys", "list", "--workspace", ws)
		for _, s := range secret {
			if strings.Contains(text, s) || strings.Contains(raw, s) {
				t.Errorf("keys list shows a key or its hash %q:\n%s\n%s", s, text, raw)
			}
		}
		if strings.Contains(raw, `"hash"`) {
			t.Errorf("keys list --output json has a hash field:\n%s", raw)
		}
		var hints []string
		for _, k := range keys {
			hints = append(hints, k.Hint)
			if !strings.Contains(text, k.ID) || !strings.Contains(text, k.Hint) {
				t.Errorf("keys list text lacks key %s or its hint %q:\n%s", k.ID, k.Hint, text)
			}
		}
		slices.Sort(hints)
		slices.Sort(wantHints)
		if !slices.Equal(hints, wantHints) {
			t.Errorf("listed hints = %q, want %q", hints, wantHints)
		}
		return keys
	}
	checkList(t, []string{apikey.Hint(testKey), apikey.Hint(live.Key)}, secrets(testKey, live.Key))

	// Regenerate: a new key, same id and scopes; the old one stops working.
	fresh, freshID := createdKey(t, c.must("keys", "regenerate", testID, "--workspace", ws), apikey.Test)
	if fresh == testKey || freshID != testID {
		t.Fatalf("regenerate printed key %q id %s; want a new key for id %s", fresh, freshID, testID)
	}
	if _, err := c.store.Keys.Authenticate(ctx, testKey, apikey.Test); !errors.Is(err, apikey.ErrUnknownKey) {
		t.Errorf("old key after regenerate: err = %v, want ErrUnknownKey", err)
	}
	p, err = c.store.Keys.Authenticate(ctx, fresh, apikey.Test)
	if err != nil {
		t.Fatalf("regenerated key: %v", err)
	}
	if p.KeyID != testID || p.WorkspaceID != ws || !slices.Equal(p.Scopes, readScopes) {
		t.Errorf("regenerated key principal = %+v, want key %s with scopes %v", p, testID, readScopes)
	}
	checkList(t, []string{apikey.Hint(fresh), apikey.Hint(live.Key)}, secrets(testKey, fresh, live.Key))

	// Revoke: the key stops working and is listed as revoked.
	if out := c.must("keys", "revoke", testID, "--workspace", ws); strings.TrimSpace(out) != "revoked "+testID {
		t.Errorf("keys revoke printed %q", out)
	}
	if _, err := c.store.Keys.Authenticate(ctx, fresh, apikey.Test); !errors.Is(err, apikey.ErrUnknownKey) {
		t.Errorf("revoked key: err = %v, want ErrUnknownKey", err)
	}
	if _, err := c.store.Keys.Authenticate(ctx, live.Key, apikey.Live); err != nil {
		t.Errorf("revoking one key broke another: %v", err)
	}
	for _, k := range checkList(t, []string{apikey.Hint(fresh), apikey.Hint(live.Key)}, secrets(testKey, fresh, live.Key)) {
		if revoked := k.RevokedAt != nil; revoked != (k.ID == testID) {
			t.Errorf("key %s revoked = %v", k.ID, revoked)
		}
	}
	if text := c.must("keys", "list", "--workspace", ws); !regexp.MustCompile(`(?m)^` + testID + `\s.*\srevoked$`).MatchString(text) {
		t.Errorf("keys list does not show %s as revoked:\n%s", testID, text)
	}

	revoked, err := c.run("keys", "regenerate", testID, "--workspace", ws)
	if !errors.Is(err, apikey.ErrRevoked) || strings.Contains(revoked, "ps_") {
		t.Errorf("regenerate a revoked key: err = %v, output %q; want ErrRevoked and no key", err, revoked)
	}
	if _, err := c.run("keys", "revoke", testID, "--workspace", ws); !errors.Is(err, apikey.ErrRevoked) {
		t.Errorf("revoke twice: err = %v, want ErrRevoked", err)
	}
}

func TestKeysCreateCustomScopes(t *testing.T) {
	c := newConsoleTable(t)
	ws := c.createWorkspace("Acme")
	created, _ := mustJSON[apikey.CreatedKey](c, "keys", "create", "--workspace", ws, "--env", "test",
		"--preset", "custom", "--scopes", "email:send_bulk,emails:read")
	want := []apikey.Scope{apikey.EmailSendBulk, apikey.EmailsRead}
	if !slices.Equal(created.Record.Scopes, want) {
		t.Errorf("scopes = %v, want %v", created.Record.Scopes, want)
	}
	p, err := c.store.Keys.Authenticate(t.Context(), created.Key, apikey.Test)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Has(apikey.EmailSendBulk) || !p.Has(apikey.EmailsRead) || p.Has(apikey.EmailSend) {
		t.Errorf("principal scopes = %v, want exactly %v", p.Scopes, want)
	}
}

func TestKeysCommandErrors(t *testing.T) {
	c := newConsoleTable(t)
	ws := c.createWorkspace("Acme")
	absent := uuid.NewString()
	cases := map[string]struct {
		args    []string
		wantIs  error
		wantMsg string
	}{
		"custom preset without scopes": {args: []string{"keys", "create", "--workspace", ws, "--preset", "custom"}, wantMsg: "at least one scope"},
		"unknown scope":                {args: []string{"keys", "create", "--workspace", ws, "--preset", "custom", "--scopes", "emails:read,email:teleport"}, wantMsg: `unknown scope "email:teleport"`},
		"scopes with a fixed preset":   {args: []string{"keys", "create", "--workspace", ws, "--preset", "read", "--scopes", "emails:read"}, wantMsg: "only taken with the custom preset"},
		"unknown preset":               {args: []string{"keys", "create", "--workspace", ws, "--preset", "admin"}, wantMsg: `unknown preset "admin"`},
		"env prod":                     {args: []string{"keys", "create", "--workspace", ws, "--env", "prod"}, wantMsg: "--env must be live or test"},
		"missing workspace":            {args: []string{"keys", "create", "--env", "test"}, wantMsg: "--workspace is required"},
		"absent workspace":             {args: []string{"keys", "create", "--workspace", absent, "--env", "test"}, wantIs: workspace.ErrNotFound},
		"list without workspace":       {args: []string{"keys", "list"}, wantMsg: "--workspace is required"},
		"regenerate an absent key":     {args: []string{"keys", "regenerate", uuid.NewString(), "--workspace", ws}, wantIs: apikey.ErrKeyNotFound},
		"revoke an absent key":         {args: []string{"keys", "revoke", uuid.NewString(), "--workspace", ws}, wantIs: apikey.ErrKeyNotFound},
		"regenerate without a key id":  {args: []string{"keys", "regenerate", "--workspace", ws}, wantMsg: "accepts 1 arg"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			out, err := c.run(tc.args...)
			checkFails(t, tc.args, out, err, tc.wantIs, tc.wantMsg)
			if strings.Contains(out, "ps_live_") || strings.Contains(out, "ps_test_") {
				t.Errorf("a failed command printed a key:\n%s", out)
			}
		})
	}
	for _, id := range []string{ws, absent} {
		if keys, err := c.store.Keys.ListKeys(t.Context(), id); err != nil || len(keys) != 0 {
			t.Errorf("failed commands left keys in workspace %s: %v (err %v)", id, keys, err)
		}
	}
}
