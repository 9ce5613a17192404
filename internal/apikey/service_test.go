package apikey_test

import (
	"slices"
	"testing"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/dynamo/storetest"
	"github.com/sesame-mail/sesame/internal/fail/failtest"
	"github.com/sesame-mail/sesame/internal/workspace"
)

func TestKeys(t *testing.T) {
	ctx := t.Context()
	store := storetest.New(t)
	ws := storetest.Workspace(t, store, "Acme")
	k := &apikey.Service{Store: store.Keys}

	created, err := k.Create(ctx, apikey.KeyRequest{WorkspaceID: ws.ID, Environment: apikey.Test,
		Preset: apikey.PresetCustom, Scopes: []string{"emails:read", " email:send_bulk", "emails:read"}, Name: "ci"})
	if err != nil {
		t.Fatal(err)
	}
	want := []apikey.Scope{apikey.EmailsRead, apikey.EmailSendBulk}
	if r := created.Record; r.WorkspaceID != ws.ID || r.Name != "ci" || r.Environment != apikey.Test ||
		!slices.Equal(r.Scopes, want) || r.Hint != apikey.Hint(created.Key) {
		t.Errorf("Create = %+v", created)
	}
	p, err := store.Keys.Authenticate(ctx, created.Key, apikey.Test)
	if err != nil || p.KeyID != created.Record.ID || !slices.Equal(p.Scopes, want) {
		t.Fatalf("the created key authenticates as %+v (err %v)", p, err)
	}
	full, err := k.Create(ctx, apikey.KeyRequest{WorkspaceID: ws.ID, Environment: apikey.Live})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(full.Record.Scopes, apikey.FullAccess) {
		t.Errorf("no preset gave scopes %v, want full access", full.Record.Scopes)
	}

	fresh, err := k.Regenerate(ctx, ws.ID, created.Record.ID)
	if err != nil {
		t.Fatal(err)
	}
	if fresh.Key == created.Key || fresh.Record.ID != created.Record.ID || !slices.Equal(fresh.Record.Scopes, want) {
		t.Errorf("Regenerate = %+v, want a new key for %s", fresh, created.Record.ID)
	}
	if _, err := store.Keys.Authenticate(ctx, created.Key, apikey.Test); err == nil {
		t.Error("the old key still authenticates after Regenerate")
	}
	if err := k.Revoke(ctx, ws.ID, created.Record.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Keys.Authenticate(ctx, fresh.Key, apikey.Test); err == nil {
		t.Error("a revoked key authenticates")
	}
	keys, err := k.List(ctx, ws.ID)
	if err != nil || len(keys) != 2 {
		t.Fatalf("List = %+v (err %v), want two keys", keys, err)
	}
	for _, key := range keys {
		if revoked := key.RevokedAt != nil; revoked != (key.ID == created.Record.ID) {
			t.Errorf("key %s revoked = %v", key.ID, revoked)
		}
	}
	_, err = k.Regenerate(ctx, ws.ID, created.Record.ID)
	failtest.WantIs(t, err, apikey.ErrRevoked)
	failtest.WantIs(t, k.Revoke(ctx, ws.ID, created.Record.ID), apikey.ErrRevoked)
	if none, err := k.List(ctx, uuid.NewString()); err != nil || none == nil || len(none) != 0 {
		t.Errorf("List of a workspace without keys = %#v (err %v), want an empty list", none, err)
	}
}

func TestKeysRefusals(t *testing.T) {
	ctx := t.Context()
	store := storetest.New(t)
	ws := storetest.Workspace(t, store, "Acme")
	k := &apikey.Service{Store: store.Keys}
	absent := uuid.NewString()
	cases := map[string]struct {
		req   apikey.KeyRequest
		field string // the input refused, or
		want  error
	}{
		"no workspace":          {req: apikey.KeyRequest{Environment: apikey.Live}, field: "workspace"},
		"no environment":        {req: apikey.KeyRequest{WorkspaceID: ws.ID}, field: "env"},
		"environment prod":      {req: apikey.KeyRequest{WorkspaceID: ws.ID, Environment: "prod"}, field: "env"},
		"absent workspace":      {req: apikey.KeyRequest{WorkspaceID: absent, Environment: apikey.Test}, want: workspace.ErrNotFound},
		"custom without scopes": {req: apikey.KeyRequest{WorkspaceID: ws.ID, Environment: apikey.Test, Preset: apikey.PresetCustom}},
		"scopes with a preset":  {req: apikey.KeyRequest{WorkspaceID: ws.ID, Environment: apikey.Test, Preset: apikey.PresetRead, Scopes: []string{"emails:read"}}},
		"unknown scope":         {req: apikey.KeyRequest{WorkspaceID: ws.ID, Environment: apikey.Test, Preset: apikey.PresetCustom, Scopes: []string{"email:teleport"}}},
		"unknown preset":        {req: apikey.KeyRequest{WorkspaceID: ws.ID, Environment: apikey.Test, Preset: "admin"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			created, err := k.Create(t.Context(), tc.req)
			switch {
			case tc.field != "":
				failtest.WantInput(t, err, tc.field)
			case tc.want != nil:
				failtest.WantIs(t, err, tc.want)
			case err == nil:
				t.Error("Create succeeded")
			}
			if created.Key != "" {
				t.Errorf("a refused Create returned a key")
			}
		})
	}
	for _, id := range []string{ws.ID, absent} {
		if keys, err := store.Keys.ListKeys(ctx, id); err != nil || len(keys) != 0 {
			t.Errorf("refusals left keys in %s: %+v (err %v)", id, keys, err)
		}
	}
	_, err := k.Regenerate(ctx, ws.ID, uuid.NewString())
	failtest.WantIs(t, err, apikey.ErrKeyNotFound)
	failtest.WantIs(t, k.Revoke(ctx, ws.ID, uuid.NewString()), apikey.ErrKeyNotFound)
	_, err = k.Regenerate(ctx, "", uuid.NewString())
	failtest.WantInput(t, err, "workspace")
	failtest.WantInput(t, k.Revoke(ctx, "", uuid.NewString()), "workspace")
	_, err = k.List(ctx, "")
	failtest.WantInput(t, err, "workspace")
}
