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

func TestSendersCommands(t *testing.T) {
	ctx := t.Context()
	c := newConsoleTable(t)
	ws := c.createWorkspace("Acme")
	if _, err := c.store.Domains.AddDomain(ctx, ws, "example.com", nil); err != nil {
		t.Fatal(err)
	}

	out := c.must("senders", "add", "--workspace", ws, "--from", "Acme <hello@example.com>", "--reply-to", "help@example.com", "--default")
	id := strings.TrimSpace(out)
	if _, err := uuid.Parse(id); err != nil || strings.Count(out, "\n") != 1 {
		t.Fatalf("senders add printed %q, want just the new id", out)
	}
	s, err := c.store.Senders.GetSender(ctx, ws, id)
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "Acme" || s.Email != "hello@example.com" || !slices.Equal(s.ReplyTo, []string{"help@example.com"}) {
		t.Errorf("stored sender = %+v", s)
	}
	if def := c.workspace(ws).DefaultSender; def == nil || def.ID != id || def.Email != "hello@example.com" || def.Name != "Acme" {
		t.Errorf("default sender = %+v, want %s", def, id)
	}

	// A second sender, not the default: the default stays; the domain
	// matches whatever the case of the address.
	news, _ := mustJSON[identity.Sender](c, "senders", "add", "--workspace", ws, "--from", "news@Example.COM",
		"--reply-to", "a@example.com,b@example.org")
	if news.ID == "" || news.ID == id || news.Email != "news@Example.COM" || news.Name != "" ||
		!slices.Equal(news.ReplyTo, []string{"a@example.com", "b@example.org"}) {
		t.Errorf("senders add --output json = %+v", news)
	}
	if def := c.workspace(ws).DefaultSender; def == nil || def.ID != id {
		t.Errorf("a non-default sender changed the default to %+v", def)
	}

	list := c.must("senders", "list", "--workspace", ws)
	if !regexp.MustCompile(`(?m)^` + id + `\s+"Acme" <hello@example\.com>\s+help@example\.com\s+yes\s*$`).MatchString(list) {
		t.Errorf("senders list does not show %s as the default:\n%s", id, list)
	}
	if !regexp.MustCompile(`(?m)^` + news.ID + `\s+<news@Example\.COM>\s+a@example\.com,b@example\.org\s*$`).MatchString(list) {
		t.Errorf("senders list does not show %s as a plain sender:\n%s", news.ID, list)
	}
	if n := strings.Count(list, "yes"); n != 1 {
		t.Errorf("senders list marks %d defaults, want 1:\n%s", n, list)
	}
	all, _ := mustJSON[[]identity.Sender](c, "senders", "list", "--workspace", ws)
	if len(all) != 2 || all[0].ID != id || all[1].ID != news.ID {
		t.Errorf("senders list --output json = %+v, want %s then %s", all, id, news.ID)
	}

	// An unquoted line break in --reply-to never reaches a stored address.
	if out, err := c.run("senders", "add", "--workspace", ws, "--from", "crlf@example.com", "--reply-to", "help@example.com\r\nBcc: x@example.org"); err == nil {
		s, err := c.store.Senders.GetSender(ctx, ws, strings.TrimSpace(out))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range s.ReplyTo {
			if strings.ContainsAny(r, "\r\n") || strings.Contains(r, "Bcc") {
				t.Errorf("stored reply-to %q carries the injected line", r)
			}
		}
	}

	// Making a new sender the default moves the mark.
	third := strings.TrimSpace(c.must("senders", "add", "--workspace", ws, "--from", "Billing <billing@example.com>", "--default"))
	if def := c.workspace(ws).DefaultSender; def == nil || def.ID != third {
		t.Errorf("default sender = %+v, want %s", def, third)
	}
	list = c.must("senders", "list", "--workspace", ws)
	if !regexp.MustCompile(`(?m)^`+third+`\s.*\syes\s*$`).MatchString(list) || strings.Count(list, "yes") != 1 {
		t.Errorf("senders list after a new default:\n%s", list)
	}
}

func TestSendersCommandErrors(t *testing.T) {
	ctx := t.Context()
	c := newConsoleTable(t)
	ws := c.createWorkspace("Acme")
	other := c.createWorkspace("Other")
	for _, d := range []struct{ ws, name string }{{ws, "example.com"}, {other, "other.example"}} {
		if _, err := c.store.Domains.AddDomain(ctx, d.ws, d.name, nil); err != nil {
			t.Fatal(err)
		}
	}
	add := func(extra ...string) []string {
		return append([]string{"senders", "add", "--workspace", ws}, extra...)
	}
	cases := map[string]struct {
		args    []string
		wantIs  error
		wantMsg string
	}{
		"missing workspace":           {args: []string{"senders", "add", "--from", "hello@example.com"}, wantMsg: "--workspace is required"},
		"list without workspace":      {args: []string{"senders", "list"}, wantMsg: "--workspace is required"},
		"list of an absent workspace": {args: []string{"senders", "list", "--workspace", uuid.NewString()}, wantIs: workspace.ErrNotFound},
		"no from":                     {args: add(), wantMsg: "--from"},
		"from on an unknown domain":   {args: add("--from", "hello@unknown.example"), wantIs: identity.ErrDomainNotFound, wantMsg: "unknown.example is not a domain of this workspace"},
		"from on another workspace's": {args: add("--from", "hello@other.example"), wantIs: identity.ErrDomainNotFound, wantMsg: "other.example is not a domain of this workspace"},
		"from on a subdomain":         {args: add("--from", "hello@mail.example.com"), wantIs: identity.ErrDomainNotFound},
		"from is not an address":      {args: add("--from", "Acme"), wantMsg: "--from"},
		"from with two addresses":     {args: add("--from", "a@example.com, b@example.com"), wantMsg: "--from"},
		"CRLF in from":                {args: add("--from", "Acme <hello@example.com>\r\nBcc: victim@example.org"), wantMsg: "line breaks are not allowed"},
		"LF in the from display name": {args: add("--from", "Acme\nInc <hello@example.com>"), wantMsg: "line breaks are not allowed"},
		"bad reply-to":                {args: add("--from", "hello@example.com", "--reply-to", "help at example.com"), wantMsg: `--reply-to "help at example.com"`},
		"bad second reply-to":         {args: add("--from", "hello@example.com", "--reply-to", "help@example.com,nope"), wantMsg: `--reply-to "nope"`},
		// --reply-to is CSV: a quoted field keeps its line break (an unquoted
		// one ends the list; see TestSendersCommands).
		"CRLF in reply-to":            {args: add("--from", "hello@example.com", "--reply-to", "\"help@example.com\r\nBcc: x@example.org\""), wantMsg: "line breaks are not allowed"},
		"from on an absent workspace": {args: []string{"senders", "add", "--workspace", uuid.NewString(), "--from", "hello@example.com"}, wantIs: identity.ErrDomainNotFound},
		"arguments instead of --from": {args: add("hello@example.com"), wantMsg: "unknown command"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			out, err := c.run(tc.args...)
			checkFails(t, tc.args, out, err, tc.wantIs, tc.wantMsg)
		})
	}
	for _, id := range []string{ws, other} {
		if senders, err := c.store.Senders.ListSenders(ctx, id); err != nil || len(senders) != 0 {
			t.Errorf("failed commands left senders in %s: %+v (err %v)", id, senders, err)
		}
		if def := c.workspace(id).DefaultSender; def != nil {
			t.Errorf("failed commands set a default sender %+v", def)
		}
	}
}
