package main

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/workspace"
)

func TestWorkspaceCommands(t *testing.T) {
	c := newConsoleTable(t)

	out := c.must("workspace", "create", "--name", "Acme")
	acme := strings.TrimSpace(out)
	if _, err := uuid.Parse(acme); err != nil || strings.Count(out, "\n") != 1 {
		t.Fatalf("workspace create printed %q, want just the new id", out)
	}
	beta, _ := mustJSON[workspace.Workspace](c, "workspace", "create", "--name", "Beta")
	if beta.Name != "Beta" || beta.ID == "" || beta.ID == acme || beta.CreatedAt.IsZero() {
		t.Fatalf("workspace create --output json = %+v", beta)
	}

	list := c.must("workspace", "list")
	for _, want := range []string{"ID", "NAME", "CREATED", acme, "Acme", beta.ID, "Beta"} {
		if !strings.Contains(list, want) {
			t.Errorf("workspace list lacks %q:\n%s", want, list)
		}
	}
	all, _ := mustJSON[[]workspace.Workspace](c, "workspace", "list")
	var names []string
	for _, ws := range all {
		names = append(names, ws.ID+"="+ws.Name)
	}
	slices.Sort(names)
	want := []string{acme + "=Acme", beta.ID + "=Beta"}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("workspace list --output json = %v, want %v", names, want)
	}

	// Without an id, show and set act on SESAME_WORKSPACE_ID.
	t.Setenv("SESAME_WORKSPACE_ID", beta.ID)
	c.must("workspace", "set", "--monthly-allowance", "9")
	if out := c.must("workspace", "show"); !regexp.MustCompile(`(?m)^name\s+Beta$`).MatchString(out) || !regexp.MustCompile(`(?m)^monthly allowance\s+9$`).MatchString(out) {
		t.Errorf("workspace show of the default workspace:\n%s", out)
	}

	// show names every setting, saying what an unset one means.
	show := c.must("workspace", "show", acme)
	for _, re := range []string{`(?m)^id\s+` + acme + `$`, `(?m)^name\s+Acme$`, `(?m)^created\s+\d{4}-\d\d-\d\d `,
		`(?m)^verified domains\s+none \(sesame domains add`, `(?m)^default sender\s+none \(sends must give from or sender_id; set one with sesame senders add --default\)$`,
		`(?m)^default tracking\s+full \(the default\)$`, `(?m)^tracking off provisioned\s+false$`,
		`(?m)^monthly allowance\s+0 \(no cap\)$`, `(?m)^brands\s+none `, `(?m)^postal address\s+none \(campaign footers need one`} {
		if !regexp.MustCompile(re).MatchString(show) {
			t.Errorf("workspace show does not match %s:\n%s", re, show)
		}
	}
	ctx := t.Context()
	for _, d := range []string{"acme.example", "mail.acme.example"} {
		if _, err := c.store.Domains.AddDomain(ctx, acme, d, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := c.store.Domains.SetDomainStatus(ctx, acme, d, identity.DomainVerified, nil); err != nil {
			t.Fatal(err)
		}
	}
	sender, err := c.store.Senders.AddSender(ctx, acme, identity.Sender{Name: "Acme Grüße", Email: "hello@acme.example", ReplyTo: []string{"help@acme.example"}}, true)
	if err != nil {
		t.Fatal(err)
	}
	c.must("workspace", "set", acme, "--monthly-allowance", "5000", "--tracking-off-provisioned", "--default-tracking", "off", "--brands", "Acme,AcmeCo",
		"--postal-address", "Acme Ltd, 1 Main St, Springfield")
	show = c.must("workspace", "show", acme)
	for _, re := range []string{`(?m)^verified domains\s+acme\.example, mail\.acme\.example$`,
		`(?m)^default sender\s+Acme Grüße <hello@acme\.example> \(` + sender.ID + `\), reply-to help@acme\.example$`,
		`(?m)^default tracking\s+off$`, `(?m)^tracking off provisioned\s+true$`, `(?m)^monthly allowance\s+5000$`, `(?m)^brands\s+Acme, AcmeCo$`,
		`(?m)^postal address\s+Acme Ltd, 1 Main St, Springfield$`} {
		if !regexp.MustCompile(re).MatchString(show) {
			t.Errorf("workspace show does not match %s:\n%s", re, show)
		}
	}
	if n := strings.Count(show, "\n"); n != 11 {
		t.Errorf("workspace show printed %d lines, want 11 (every setting):\n%s", n, show)
	}
	shown, _ := mustJSON[workspace.Workspace](c, "workspace", "show", beta.ID)
	if shown.ID != beta.ID || shown.Name != "Beta" || !shown.CreatedAt.Equal(beta.CreatedAt) {
		t.Errorf("workspace show --output json = %+v, want %+v", shown, beta)
	}
}

func TestWorkspaceCommandErrors(t *testing.T) {
	c := newConsoleTable(t)
	cases := map[string]struct {
		args    []string
		wantIs  error
		wantMsg string
	}{
		"create without a name": {args: []string{"workspace", "create"}, wantMsg: "--name is required"},
		"show an absent id":     {args: []string{"workspace", "show", uuid.NewString()}, wantIs: workspace.ErrNotFound},
		"show without an id":    {args: []string{"workspace", "show"}, wantMsg: "name the workspace"},
		"unknown output format": {args: []string{"workspace", "list", "--output", "yaml"}, wantMsg: "--output must be"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			out, err := c.run(tc.args...)
			checkFails(t, tc.args, out, err, tc.wantIs, tc.wantMsg)
		})
	}
	if all, err := c.store.Workspaces.ListWorkspaces(t.Context()); err != nil || len(all) != 0 {
		t.Errorf("failed commands left workspaces %v (err %v)", all, err)
	}
}

func TestWorkspaceSet(t *testing.T) {
	c := newConsoleTable(t)
	ws := c.createWorkspace("Acme")
	other := c.createWorkspace("Other")

	out := c.must("workspace", "set", ws, "--monthly-allowance", "100", "--tracking-off-provisioned",
		"--default-tracking", "essential", "--brands", "Acme,AcmeCo")
	for _, re := range []string{`(?m)^monthly allowance\s+100$`, `(?m)^tracking off provisioned\s+true$`,
		`(?m)^default tracking\s+essential$`, `(?m)^brands\s+Acme, AcmeCo$`} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("workspace set output does not match %s:\n%s", re, out)
		}
	}
	got := c.workspace(ws)
	if got.MonthlyAllowance != 100 || !got.TrackingOffProvisioned || got.DefaultTracking != "essential" ||
		!slices.Equal(got.Brands, []string{"Acme", "AcmeCo"}) || got.Name != "Acme" {
		t.Errorf("stored workspace = %+v", got)
	}

	// Only the flags given change; 0 lifts the cap; false is a value.
	changed, _ := mustJSON[workspace.Workspace](c, "workspace", "set", ws, "--monthly-allowance", "0", "--tracking-off-provisioned=false")
	if changed.MonthlyAllowance != 0 || changed.TrackingOffProvisioned || changed.DefaultTracking != "essential" ||
		!slices.Equal(changed.Brands, []string{"Acme", "AcmeCo"}) {
		t.Errorf("workspace set --output json = %+v", changed)
	}
	if got := c.workspace(ws); got.MonthlyAllowance != 0 || got.TrackingOffProvisioned || got.DefaultTracking != "essential" {
		t.Errorf("stored workspace after a partial change = %+v", got)
	}
	if o := c.workspace(other); o.MonthlyAllowance != 0 || o.TrackingOffProvisioned || o.DefaultTracking != "" || len(o.Brands) != 0 {
		t.Errorf("setting one workspace changed another: %+v", o)
	}

	before := c.workspace(ws)
	cases := map[string]struct {
		args    []string
		wantIs  error
		wantMsg string
	}{
		"tracking sometimes":     {args: []string{"workspace", "set", ws, "--default-tracking", "sometimes"}, wantMsg: "--default-tracking must be full, essential or off"},
		"empty tracking":         {args: []string{"workspace", "set", ws, "--default-tracking", ""}, wantMsg: "--default-tracking must be"},
		"negative allowance":     {args: []string{"workspace", "set", ws, "--monthly-allowance", "-1"}, wantMsg: "--monthly-allowance must be 0 (no cap) or more"},
		"allowance not a number": {args: []string{"workspace", "set", ws, "--monthly-allowance", "lots"}, wantMsg: "invalid argument"},
		"no flags":               {args: []string{"workspace", "set", ws}, wantMsg: "nothing to change"},
		"no id":                  {args: []string{"workspace", "set", "--monthly-allowance", "5"}, wantMsg: "name the workspace"},
		"absent workspace":       {args: []string{"workspace", "set", uuid.NewString(), "--monthly-allowance", "5"}, wantIs: workspace.ErrNotFound},
		// One bad flag rejects the whole change.
		"bad flag beside a good one": {args: []string{"workspace", "set", ws, "--monthly-allowance", "7", "--default-tracking", "loud"}, wantMsg: "--default-tracking"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			out, err := c.run(tc.args...)
			checkFails(t, tc.args, out, err, tc.wantIs, tc.wantMsg)
		})
	}
	if after := c.workspace(ws); after.MonthlyAllowance != before.MonthlyAllowance || after.DefaultTracking != before.DefaultTracking ||
		after.TrackingOffProvisioned != before.TrackingOffProvisioned || !slices.Equal(after.Brands, before.Brands) {
		t.Errorf("failed commands changed the workspace: %+v, was %+v", after, before)
	}
	if all, err := c.store.Workspaces.ListWorkspaces(t.Context()); err != nil || len(all) != 2 {
		t.Errorf("workspaces = %+v (err %v), want the two created", all, err)
	}
}

// The postal address is set on one line, shown by show, refused with a
// control character or over 300 characters, and cleared by "".
func TestWorkspacePostalAddress(t *testing.T) {
	c := newConsoleTable(t)
	ws := c.createWorkspace("Acme")
	out := c.must("workspace", "set", ws, "--postal-address", "Acme Ltd, 1 Main St, Springfield <IL> 62701")
	if !regexp.MustCompile(`(?m)^postal address\s+Acme Ltd, 1 Main St, Springfield <IL> 62701$`).MatchString(out) {
		t.Errorf("workspace set output:\n%s", out)
	}
	if got := c.workspace(ws).PostalAddress; got != "Acme Ltd, 1 Main St, Springfield <IL> 62701" {
		t.Errorf("stored postal address %q", got)
	}
	for name, addr := range map[string]string{
		"line break":     "Acme Ltd\n1 Main St",
		"tab":            "Acme Ltd\t1 Main St",
		"line separator": "Acme Ltd\u20281 Main St",
		"too long":       strings.Repeat("a", 301),
		"spaces around":  " Acme Ltd ",
	} {
		t.Run(name, func(t *testing.T) {
			args := []string{"workspace", "set", ws, "--postal-address", addr}
			out, err := c.run(args...)
			checkFails(t, args, out, err, nil, "--postal-address")
		})
	}
	if got := c.workspace(ws).PostalAddress; got != "Acme Ltd, 1 Main St, Springfield <IL> 62701" {
		t.Errorf("a refused address changed it to %q", got)
	}
	c.must("workspace", "set", ws, "--postal-address", strings.Repeat("é", 300)) // characters, not bytes
	c.must("workspace", "set", ws, "--postal-address", "")
	if got := c.workspace(ws); got.PostalAddress != "" || got.Name != "Acme" {
		t.Errorf("after clearing: %+v", got)
	}
	if show := c.must("workspace", "show", ws); !strings.Contains(show, "postal address\tnone") && !regexp.MustCompile(`(?m)^postal address\s+none`).MatchString(show) {
		t.Errorf("show after clearing:\n%s", show)
	}
}
