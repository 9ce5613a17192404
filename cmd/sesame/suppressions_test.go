package main

import (
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/sending"
)

func TestSuppressionsAdd(t *testing.T) {
	ctx := t.Context()
	c := newConsoleTable(t)
	ws := c.createWorkspace("Acme")
	other := c.createWorkspace("Other")
	suppressed := func(t *testing.T, workspaceID, recipient string) bool {
		t.Helper()
		sc, err := c.store.Sends.LoadContext(ctx, sending.ContextQuery{WorkspaceID: workspaceID, Recipient: recipient, Fingerprint: "x", Month: "2026-11"})
		if err != nil {
			t.Fatal(err)
		}
		return sc.Suppressed
	}

	if out := c.must("suppressions", "add", "ann@example.org", "--workspace", ws); out != "suppressed ann@example.org\n" {
		t.Errorf("suppressions add printed %q", out)
	}
	res, _ := mustJSON[map[string]string](c, "suppressions", "add", "Bob <Bob@Example.ORG>", "--workspace", ws, "--reason", "asked by phone")
	if res["suppressed"] != "Bob@Example.ORG" || len(res) != 1 {
		t.Errorf("suppressions add --output json = %v", res)
	}
	for recipient, want := range map[string]bool{"ann@example.org": true, "ANN@example.org": true, "bob@example.org": true, "carl@example.org": false} {
		if got := suppressed(t, ws, recipient); got != want {
			t.Errorf("%s suppressed = %v, want %v", recipient, got, want)
		}
	}
	if suppressed(t, other, "ann@example.org") {
		t.Error("a suppression of one workspace applies to another")
	}
	// Adding it again is harmless.
	c.must("suppressions", "add", "ann@example.org", "--workspace", ws)
	if !suppressed(t, ws, "ann@example.org") {
		t.Error("adding a suppression twice lost it")
	}

	cases := map[string]struct {
		args    []string
		wantMsg string
	}{
		"not an address":    {args: []string{"suppressions", "add", "ann at example.org", "--workspace", ws}, wantMsg: "cannot parse"},
		"CRLF":              {args: []string{"suppressions", "add", "dan@example.org\r\nBcc: x@example.org", "--workspace", ws}, wantMsg: "line breaks are not allowed"},
		"two addresses":     {args: []string{"suppressions", "add", "dan@example.org, eve@example.org", "--workspace", ws}, wantMsg: "2 addresses given"},
		"no address":        {args: []string{"suppressions", "add", "--workspace", ws}, wantMsg: "accepts 1 arg"},
		"missing workspace": {args: []string{"suppressions", "add", "dan@example.org"}, wantMsg: "--workspace is required"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			out, err := c.run(tc.args...)
			checkFails(t, tc.args, out, err, nil, tc.wantMsg)
			if strings.Contains(out, "suppressed") {
				t.Errorf("a failed command said it suppressed:\n%s", out)
			}
		})
	}
	for _, r := range []string{"dan@example.org", "eve@example.org"} {
		if suppressed(t, ws, r) {
			t.Errorf("a failed command suppressed %s", r)
		}
	}
}
