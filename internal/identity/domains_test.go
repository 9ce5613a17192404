package identity_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/dynamo/storetest"
	"github.com/sesame-mail/sesame/internal/fail/failtest"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/ses"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// fakeIdentities answers the SES identity calls with its function fields
// and records every call; a call without its field fails the test.
type fakeIdentities struct {
	t            *testing.T
	createDomain func(domain, configurationSet string) ([]identity.DNSRecord, error)
	domainStatus func(domain string) (identity.ProviderStatus, error)

	mu    sync.Mutex
	calls []string
}

func (f *fakeIdentities) record(call string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, call)
}

func (f *fakeIdentities) CreateDomain(_ context.Context, domain, configurationSet string) ([]identity.DNSRecord, error) {
	f.record("CreateDomain " + domain + " " + configurationSet)
	if f.createDomain == nil {
		f.t.Errorf("unexpected CreateDomain(%q)", domain)
		return nil, errors.New("unexpected call")
	}
	return f.createDomain(domain, configurationSet)
}

func (f *fakeIdentities) DomainStatus(_ context.Context, domain string) (identity.ProviderStatus, error) {
	f.record("DomainStatus " + domain)
	if f.domainStatus == nil {
		f.t.Errorf("unexpected DomainStatus(%q)", domain)
		return identity.ProviderStatus{}, errors.New("unexpected call")
	}
	return f.domainStatus(domain)
}

func (f *fakeIdentities) called() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

func dkimRecords(domain string) []identity.DNSRecord {
	var out []identity.DNSRecord
	for i := range 3 {
		tok := fmt.Sprintf("tok%d", i)
		out = append(out, identity.DNSRecord{Type: "CNAME", Name: tok + "._domainkey." + domain, Value: tok + ".dkim.amazonses.com"})
	}
	return out
}

func createsIdentity(domain, _ string) ([]identity.DNSRecord, error) { return dkimRecords(domain), nil }

func TestDomainsAdd(t *testing.T) {
	ctx := t.Context()
	store := storetest.New(t)
	ws := storetest.Workspace(t, store, "Acme")
	sesFake := &fakeIdentities{t: t, createDomain: createsIdentity}
	d := &identity.Domains{Store: store.Domains, Identities: sesFake}

	dom, err := d.Add(ctx, identity.DomainRequest{WorkspaceID: ws.ID, Name: "example.com", ConfigurationSet: "sesame-full"})
	if err != nil {
		t.Fatal(err)
	}
	if got := sesFake.called(); !slices.Equal(got, []string{"CreateDomain example.com sesame-full"}) {
		t.Errorf("SES calls = %q", got)
	}
	if dom.Name != "example.com" || dom.Status != identity.DomainPending || len(dom.Records) != 3 ||
		dom.Records[0] != (identity.DNSRecord{Type: "CNAME", Name: "tok0._domainkey.example.com", Value: "tok0.dkim.amazonses.com"}) {
		t.Errorf("Add = %+v", dom)
	}
	if stored, err := store.Domains.GetDomain(ctx, ws.ID, "example.com"); err != nil || stored.ID != dom.ID || len(stored.Records) != 3 {
		t.Errorf("stored domain = %+v (err %v)", stored, err)
	}
}

func TestDomainsAddRefusals(t *testing.T) {
	ctx := t.Context()
	store := storetest.New(t)
	ws, other := storetest.Workspace(t, store, "Acme"), storetest.Workspace(t, store, "Other")
	if _, err := store.Domains.AddDomain(ctx, ws.ID, "taken.example", nil); err != nil {
		t.Fatal(err)
	}
	denied := func(string, string) ([]identity.DNSRecord, error) {
		return nil, errors.New("AccessDeniedException: not authorized to perform ses:CreateEmailIdentity")
	}
	cases := map[string]struct {
		req      identity.DomainRequest
		create   func(string, string) ([]identity.DNSRecord, error)
		field    string // the input refused, or
		want     error
		wantSES  bool // whether SES is reached
		wantText string
	}{
		"no workspace":     {req: identity.DomainRequest{Name: "example.com"}, field: "workspace"},
		"absent workspace": {req: identity.DomainRequest{WorkspaceID: uuid.NewString(), Name: "example.com"}, want: workspace.ErrNotFound},
		"malformed":        {req: identity.DomainRequest{WorkspaceID: ws.ID, Name: "exa mple"}, want: identity.ErrInvalidDomain},
		"added already":    {req: identity.DomainRequest{WorkspaceID: ws.ID, Name: "Taken.Example."}, want: identity.ErrDomainExists},
		// SES identities are account-wide: one workspace has a domain.
		"another workspace's": {req: identity.DomainRequest{WorkspaceID: other.ID, Name: "taken.example"}, want: identity.ErrDomainTaken},
		"SES refuses": {req: identity.DomainRequest{WorkspaceID: ws.ID, Name: "example.com"}, create: denied,
			wantSES: true, wantText: "AccessDeniedException"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			sesFake := &fakeIdentities{t: t, createDomain: tc.create}
			d := &identity.Domains{Store: store.Domains, Identities: sesFake}
			_, err := d.Add(t.Context(), tc.req)
			switch {
			case tc.field != "":
				failtest.WantInput(t, err, tc.field)
			case tc.want != nil:
				failtest.WantIs(t, err, tc.want)
			case err == nil || !strings.Contains(err.Error(), tc.wantText):
				t.Errorf("err = %v, want it to say %q", err, tc.wantText)
			}
			if called := len(sesFake.called()) > 0; called != tc.wantSES {
				t.Errorf("SES called = %v, want %v", called, tc.wantSES)
			}
		})
	}
	for _, id := range []string{ws.ID, other.ID} {
		domains, _, _, err := store.Domains.ListDomains(ctx, id, "", 10)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[string]int{ws.ID: 1, other.ID: 0}[id]; len(domains) != want {
			t.Errorf("refusals left domains %+v in %s", domains, id)
		}
	}
}

func TestDomainsStatus(t *testing.T) {
	ctx := t.Context()
	store := storetest.New(t)
	ws := storetest.Workspace(t, store, "Acme")
	for _, name := range []string{"example.com", "example.net"} {
		if _, err := store.Domains.AddDomain(ctx, ws.ID, name, nil); err != nil {
			t.Fatal(err)
		}
	}
	answers := map[string]identity.ProviderStatus{}
	sesFake := &fakeIdentities{t: t, domainStatus: func(domain string) (identity.ProviderStatus, error) {
		st, ok := answers[domain]
		if !ok {
			return identity.ProviderStatus{}, fmt.Errorf("%w: %s", ses.ErrIdentityNotFound, domain)
		}
		st.Records = dkimRecords(domain)
		return st, nil
	}}
	d := &identity.Domains{Store: store.Domains, Identities: sesFake}
	verified := func() []string {
		t.Helper()
		got, err := store.Workspaces.GetWorkspace(ctx, ws.ID)
		if err != nil {
			t.Fatal(err)
		}
		return got.VerifiedDomains
	}

	// What SES says, and what it means for sending from the domain.
	steps := []struct {
		domain       string
		answer       identity.ProviderStatus
		want         identity.DomainStatus
		wantVerified []string
	}{
		{"example.com", identity.ProviderStatus{DKIMStatus: "PENDING"}, identity.DomainPending, nil},
		{"example.com", identity.ProviderStatus{DKIMStatus: "NOT_STARTED"}, identity.DomainPending, nil},
		{"example.com", identity.ProviderStatus{Verified: true, DKIMStatus: "SUCCESS"}, identity.DomainVerified, []string{"example.com"}},
		{"example.net", identity.ProviderStatus{DKIMStatus: "FAILED"}, identity.DomainFailed, []string{"example.com"}},
		// A verified domain whose DKIM fails is sent from no more.
		{"example.com", identity.ProviderStatus{DKIMStatus: "TEMPORARY_FAILURE"}, identity.DomainFailed, nil},
	}
	for i, s := range steps {
		answers[s.domain] = s.answer
		got, err := d.Status(ctx, ws.ID, s.domain)
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if got.Domain.Name != s.domain || got.Domain.Status != s.want || got.DKIMStatus != s.answer.DKIMStatus || len(got.Domain.Records) != 3 {
			t.Errorf("step %d: Status = %+v, want %s with DKIM %s", i, got, s.want, s.answer.DKIMStatus)
		}
		if v := verified(); !slices.Equal(v, s.wantVerified) {
			t.Errorf("step %d: verified domains = %v, want %v", i, v, s.wantVerified)
		}
	}

	answers["example.org"] = identity.ProviderStatus{Verified: true, DKIMStatus: "SUCCESS"}
	_, err := d.Status(ctx, ws.ID, "example.org")
	failtest.WantIs(t, err, identity.ErrDomainNotFound) // an SES identity, but not this workspace's
	_, err = d.Status(ctx, ws.ID, "absent.example")
	failtest.WantIs(t, err, ses.ErrIdentityNotFound)
	_, err = d.Status(ctx, "", "example.com")
	failtest.WantInput(t, err, "workspace")
	if v := verified(); len(v) != 0 {
		t.Errorf("refused status reads verified %v", v)
	}
}

func TestDomainsList(t *testing.T) {
	ctx := t.Context()
	store := storetest.New(t)
	ws := storetest.Workspace(t, store, "Acme")
	d := &identity.Domains{Store: store.Domains}
	if none, err := d.List(ctx, ws.ID); err != nil || none == nil || len(none) != 0 {
		t.Errorf("List of no domains = %#v (err %v), want an empty list", none, err)
	}
	// More than one page of the store.
	var want []string
	for i := range 101 {
		name := fmt.Sprintf("d%03d.example", i)
		if _, err := store.Domains.AddDomain(ctx, ws.ID, name, nil); err != nil {
			t.Fatal(err)
		}
		want = append([]string{name}, want...)
	}
	all, err := d.List(ctx, ws.ID)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, dom := range all {
		got = append(got, dom.Name)
	}
	if !slices.Equal(got, want) {
		t.Errorf("List = %d domains %v…, want all %d newest first", len(got), got[:min(3, len(got))], len(want))
	}
	_, err = d.List(ctx, "")
	failtest.WantInput(t, err, "workspace")
}
