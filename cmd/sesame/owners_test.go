package main

import (
	"slices"
	"testing"

	"github.com/sesame-mail/sesame/internal/account"
	"github.com/sesame-mail/sesame/internal/workspace"
)

func TestOwners(t *testing.T) {
	ctx := t.Context()
	c := newConsoleTable(t)
	ws := c.createWorkspace("Acme")
	other := c.createWorkspace("Other")

	if out := c.must("owners", "add", "Ann <Ann@Example.org>", "--workspace", ws); out != "ann@example.org owns workspace "+ws+"\n" {
		t.Errorf("owners add printed %q", out)
	}
	c.must("owners", "add", "ann@example.org", "--workspace", other)
	c.must("owners", "add", "bob@example.org", "--workspace", ws)
	list, _ := mustJSON[[]account.Owner](c, "owners", "list", "--workspace", ws)
	if len(list) != 2 || list[0].Address != "ann@example.org" || list[1].Address != "bob@example.org" {
		t.Errorf("owners list = %+v, want ann and bob", list)
	}
	// Sign-in starts from the address alone: both of ann's workspaces.
	got, err := c.store.Owners.WorkspacesOf(ctx, "ann@example.org")
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	want := []string{ws, other}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("WorkspacesOf(ann) = %v, want %v", got, want)
	}

	if out := c.must("owners", "remove", "ANN@example.org", "--workspace", ws); out != "removed ANN@example.org\n" {
		t.Errorf("owners remove printed %q", out)
	}
	if got, _ := c.store.Owners.WorkspacesOf(ctx, "ann@example.org"); !slices.Equal(got, []string{other}) {
		t.Errorf("after remove, WorkspacesOf(ann) = %v, want only %s", got, other)
	}

	cases := map[string]struct {
		args    []string
		wantIs  error
		wantMsg string
	}{
		"not an address":    {args: []string{"owners", "add", "ann at example.org", "--workspace", ws}, wantMsg: "cannot parse"},
		"no workspace":      {args: []string{"owners", "add", "ann@example.org", "--workspace", "ws_none"}, wantIs: workspace.ErrNotFound, wantMsg: "workspace not found"},
		"not an owner":      {args: []string{"owners", "remove", "zed@example.org", "--workspace", ws}, wantIs: account.ErrOwnerNotFound, wantMsg: "owner not found"},
		"missing workspace": {args: []string{"owners", "list"}, wantMsg: "--workspace is required"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			out, err := c.run(tc.args...)
			checkFails(t, tc.args, out, err, tc.wantIs, tc.wantMsg)
		})
	}
}
