package main

import (
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/suppression"
)

func TestSuppressions(t *testing.T) {
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
	res, _ := mustJSON[map[string]any](c, "suppressions", "add", "Bob <Bob@Example.ORG>", "--workspace", ws, "--reason", "bounced")
	if res["email"] != "bob@example.org" || res["reason"] != "bounced" || res["email_id"] != nil || res["created"] != true || res["created_at"] == nil {
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
	// Adding it again is harmless, and says so.
	if out := c.must("suppressions", "add", "Bob@example.org", "--workspace", ws); !strings.HasPrefix(out, "bob@example.org was suppressed already (bounced, ") {
		t.Errorf("adding again printed %q", out)
	}
	list, _ := mustJSON[[]map[string]any](c, "suppressions", "list", "--workspace", ws)
	if len(list) != 2 || list[0]["email"] != "bob@example.org" || list[1]["email"] != "ann@example.org" {
		t.Errorf("suppressions list --output json = %v, want bob then ann", list)
	}
	if out := c.must("suppressions", "list", "--workspace", ws, "--reason", "manual"); !strings.Contains(out, "ann@example.org  manual  -") || strings.Contains(out, "bob@") {
		t.Errorf("suppressions list --reason manual printed:\n%s", out)
	}
	if out := c.must("suppressions", "remove", "ANN@example.org", "--workspace", ws); out != "removed ann@example.org (manual)\n" {
		t.Errorf("suppressions remove printed %q", out)
	}
	if suppressed(t, ws, "ann@example.org") || !suppressed(t, ws, "bob@example.org") {
		t.Error("remove took off the wrong address")
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
	out, err := c.run("suppressions", "remove", "ann@example.org", "--workspace", ws)
	checkFails(t, []string{"suppressions", "remove"}, out, err, suppression.ErrNotFound, "not on the do-not-send list")
	out, err = c.run("suppressions", "add", "dan@example.org", "--workspace", ws, "--reason", "asked by phone")
	checkFails(t, []string{"suppressions", "add", "--reason"}, out, err, nil, "reason must be one of")
	for _, r := range []string{"dan@example.org", "eve@example.org"} {
		if suppressed(t, ws, r) {
			t.Errorf("a failed command suppressed %s", r)
		}
	}
}
