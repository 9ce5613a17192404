package identity_test

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/dynamo/storetest"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/fail/failtest"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/workspace"
)

func TestSenders(t *testing.T) {
	ctx := t.Context()
	store := storetest.New(t)
	ws := storetest.Workspace(t, store, "Acme")
	if _, err := store.Domains.AddDomain(ctx, ws.ID, "example.com", nil); err != nil {
		t.Fatal(err)
	}
	s := &identity.Senders{Store: store.Senders, Domains: store.Domains}

	if empty, err := s.List(ctx, ws.ID); err != nil || empty.Senders == nil || len(empty.Senders) != 0 || empty.DefaultID != "" {
		t.Errorf("List of no senders = %#v (err %v)", empty, err)
	}
	hello, err := s.Add(ctx, identity.SenderRequest{WorkspaceID: ws.ID, From: "Acme <hello@example.com>", ReplyTo: []string{"help@example.com"}, Default: true})
	if err != nil {
		t.Fatal(err)
	}
	if hello.Name != "Acme" || hello.Email != "hello@example.com" || !slices.Equal(hello.ReplyTo, []string{"help@example.com"}) {
		t.Errorf("Add = %+v", hello)
	}
	// The domain matches whatever the case of the address.
	news, err := s.Add(ctx, identity.SenderRequest{WorkspaceID: ws.ID, From: "news@Example.COM"})
	if err != nil {
		t.Fatal(err)
	}
	list, err := s.List(ctx, ws.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Senders) != 2 || list.Senders[0].ID != hello.ID || list.Senders[1].ID != news.ID || list.DefaultID != hello.ID {
		t.Errorf("List = %+v, want both with %s the default", list, hello.ID)
	}
	billing, err := s.Add(ctx, identity.SenderRequest{WorkspaceID: ws.ID, From: "billing@example.com", Default: true})
	if err != nil {
		t.Fatal(err)
	}
	if list, err := s.List(ctx, ws.ID); err != nil || list.DefaultID != billing.ID {
		t.Errorf("default after a new default sender = %q (err %v), want %s", list.DefaultID, err, billing.ID)
	}
	_, err = s.List(ctx, uuid.NewString())
	failtest.WantIs(t, err, workspace.ErrNotFound)
	_, err = s.List(ctx, "")
	failtest.WantInput(t, err, "workspace")
}

func TestSendersAddRefusals(t *testing.T) {
	ctx := t.Context()
	store := storetest.New(t)
	ws, other := storetest.Workspace(t, store, "Acme"), storetest.Workspace(t, store, "Other")
	for _, d := range []struct{ ws, name string }{{ws.ID, "example.com"}, {other.ID, "other.example"}} {
		if _, err := store.Domains.AddDomain(ctx, d.ws, d.name, nil); err != nil {
			t.Fatal(err)
		}
	}
	s := &identity.Senders{Store: store.Senders, Domains: store.Domains}
	req := func(from string, replyTo ...string) identity.SenderRequest {
		return identity.SenderRequest{WorkspaceID: ws.ID, From: from, ReplyTo: replyTo, Default: true}
	}
	cases := map[string]struct {
		req       identity.SenderRequest
		field     string // the input refused, and
		value     string // the value of it refused; or
		foreignOf string // the domain that is not the workspace's
	}{
		"no workspace":         {req: identity.SenderRequest{From: "hello@example.com"}, field: "workspace"},
		"no from":              {req: req(""), field: "from"},
		"from not an address":  {req: req("Acme"), field: "from"},
		"two addresses":        {req: req("a@example.com, b@example.com"), field: "from"},
		"CRLF in from":         {req: req("Acme <hello@example.com>\r\nBcc: victim@example.org"), field: "from"},
		"LF in a display name": {req: req("Acme\nInc <hello@example.com>"), field: "from"},
		"bad reply-to":         {req: req("hello@example.com", "help@example.com", "nope"), field: "reply-to", value: "nope"},
		"CRLF in reply-to":     {req: req("hello@example.com", "help@example.com\r\nBcc: x@example.org"), field: "reply-to", value: "help@example.com\r\nBcc: x@example.org"},
		"reply-to, comma":      {req: req("hello@example.com", "r@example.org,"), field: "reply-to", value: "r@example.org,"},
		"from name, foreign":   {req: req(`"help@bank.example" <hello@example.com>`), field: "from"},
		"reply-to, foreign":    {req: req("hello@example.com", `"help@bank.example" <r@example.org>`), field: "reply-to", value: `"help@bank.example" <r@example.org>`},
		"unknown domain":       {req: req("hello@unknown.example"), foreignOf: "unknown.example"},
		"another workspace's":  {req: req("hello@other.example"), foreignOf: "other.example"},
		"a subdomain":          {req: req("hello@mail.example.com"), foreignOf: "mail.example.com"},
		"absent workspace":     {req: identity.SenderRequest{WorkspaceID: uuid.NewString(), From: "hello@example.com"}, foreignOf: "example.com"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := s.Add(t.Context(), tc.req)
			if tc.foreignOf != "" {
				if fail.ParamOf(err) != "from" || !strings.Contains(fail.MessageOf(err), tc.foreignOf+" is not a domain") || !errors.Is(err, identity.ErrDomainNotFound) {
					t.Errorf("err = %v, want %s refused as not the workspace's domain", err, tc.foreignOf)
				}
				return
			}
			failtest.WantInput(t, err, tc.field)
			if tc.value != "" && !strings.Contains(fail.MessageOf(err), strconv.Quote(tc.value)) {
				t.Errorf("refusal %q does not name the value %q", fail.MessageOf(err), tc.value)
			}
		})
	}
	for _, id := range []string{ws.ID, other.ID} {
		if senders, err := store.Senders.ListSenders(ctx, id); err != nil || len(senders) != 0 {
			t.Errorf("refusals left senders in %s: %+v (err %v)", id, senders, err)
		}
		if w, err := store.Workspaces.GetWorkspace(ctx, id); err != nil || w.DefaultSender != nil {
			t.Errorf("refusals set a default sender: %+v (err %v)", w.DefaultSender, err)
		}
	}
}
