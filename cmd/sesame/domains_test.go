package main

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sesv2"
	sestypes "github.com/aws/aws-sdk-go-v2/service/sesv2/types"
	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/emulatortest"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/ses"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// consoleSES is a fake SES API for the domain commands: each call goes to
// the function field of its operation, and calls are recorded.
type consoleSES struct {
	create func(in *sesv2.CreateEmailIdentityInput) (*sesv2.CreateEmailIdentityOutput, error)
	get    func(in *sesv2.GetEmailIdentityInput) (*sesv2.GetEmailIdentityOutput, error)

	mu      sync.Mutex
	creates []*sesv2.CreateEmailIdentityInput
	gets    []string
}

func (f *consoleSES) SendEmail(context.Context, *sesv2.SendEmailInput, ...func(*sesv2.Options)) (*sesv2.SendEmailOutput, error) {
	return nil, errors.New("fake SES: the domain commands never send")
}

func (f *consoleSES) CreateEmailIdentity(_ context.Context, in *sesv2.CreateEmailIdentityInput, _ ...func(*sesv2.Options)) (*sesv2.CreateEmailIdentityOutput, error) {
	f.mu.Lock()
	f.creates = append(f.creates, in)
	f.mu.Unlock()
	if f.create == nil {
		return nil, errors.New("fake SES: unexpected CreateEmailIdentity")
	}
	return f.create(in)
}

func (f *consoleSES) GetEmailIdentity(_ context.Context, in *sesv2.GetEmailIdentityInput, _ ...func(*sesv2.Options)) (*sesv2.GetEmailIdentityOutput, error) {
	f.mu.Lock()
	f.gets = append(f.gets, aws.ToString(in.EmailIdentity))
	f.mu.Unlock()
	if f.get == nil {
		return nil, errors.New("fake SES: unexpected GetEmailIdentity")
	}
	return f.get(in)
}

func (f *consoleSES) calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.creates) + len(f.gets)
}

// dkimTokens is what the fake SES answers for a new identity: three Easy
// DKIM tokens derived from the domain.
func dkimTokens(domain string) []string {
	base := strings.ReplaceAll(domain, ".", "")
	return []string{base + "tok1", base + "tok2", base + "tok3"}
}

func createsWithTokens(in *sesv2.CreateEmailIdentityInput) (*sesv2.CreateEmailIdentityOutput, error) {
	return &sesv2.CreateEmailIdentityOutput{DkimAttributes: &sestypes.DkimAttributes{
		Tokens: dkimTokens(aws.ToString(in.EmailIdentity)), Status: sestypes.DkimStatusPending,
	}}, nil
}

// identityAnswers answers GetEmailIdentity from a map of domain to
// (verified, DKIM status); a domain absent from it is not an identity.
func identityAnswers(states map[string]sestypes.DkimStatus) func(*sesv2.GetEmailIdentityInput) (*sesv2.GetEmailIdentityOutput, error) {
	return func(in *sesv2.GetEmailIdentityInput) (*sesv2.GetEmailIdentityOutput, error) {
		d := aws.ToString(in.EmailIdentity)
		st, ok := states[d]
		if !ok {
			return nil, &sestypes.NotFoundException{Message: aws.String("identity " + d + " does not exist")}
		}
		return &sesv2.GetEmailIdentityOutput{
			VerifiedForSendingStatus: st == sestypes.DkimStatusSuccess,
			DkimAttributes:           &sestypes.DkimAttributes{Tokens: dkimTokens(d), Status: st},
		}, nil
	}
}

func TestDomainsCommands(t *testing.T) {
	ctx := t.Context()
	c := newConsoleTable(t)
	t.Setenv("SESAME_CONFIG_SET_FULL", "")
	ws := c.createWorkspace("Acme")
	fake := &consoleSES{create: createsWithTokens}

	// add creates the identity and prints the three DKIM CNAMEs.
	out := c.mustSES(fake, "domains", "add", "Example.COM", "--workspace", ws, "--configuration-set", "sesame-full")
	if len(fake.creates) != 1 {
		t.Fatalf("CreateEmailIdentity called %d times, want once", len(fake.creates))
	}
	if in := fake.creates[0]; aws.ToString(in.EmailIdentity) != "example.com" || aws.ToString(in.ConfigurationSetName) != "sesame-full" {
		t.Errorf("CreateEmailIdentity(%q, config set %q), want example.com with sesame-full",
			aws.ToString(in.EmailIdentity), aws.ToString(in.ConfigurationSetName))
	}
	if !strings.Contains(out, "Added example.com (pending)") || !strings.Contains(out, "sesame domains status example.com") {
		t.Errorf("domains add output:\n%s", out)
	}
	for _, tok := range dkimTokens("example.com") {
		re := `(?m)^CNAME\s+` + regexp.QuoteMeta(tok+"._domainkey.example.com") + `\s+` + regexp.QuoteMeta(tok+".dkim.amazonses.com") + `\s*$`
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("domains add does not print the record of %s:\n%s", tok, out)
		}
	}
	if n := strings.Count(out, "CNAME"); n != 3 {
		t.Errorf("domains add printed %d CNAME records, want 3:\n%s", n, out)
	}
	d, err := c.store.Domains.GetDomain(ctx, ws, "example.com")
	if err != nil {
		t.Fatal(err)
	}
	if d.Status != identity.DomainPending || len(d.Records) != 3 || d.VerifiedAt != nil {
		t.Errorf("stored domain = %+v, want pending with 3 records", d)
	}
	if v := c.workspace(ws).VerifiedDomains; len(v) != 0 {
		t.Errorf("verified domains after add = %v, want none", v)
	}

	// A second domain, added with JSON output and the default (empty)
	// configuration set.
	net, _ := sesJSON[identity.Domain](c, fake, "domains", "add", "mail.example.net", "--workspace", ws)
	if net.Name != "mail.example.net" || net.Status != identity.DomainPending || len(net.Records) != 3 || net.ID == "" {
		t.Errorf("domains add --output json = %+v", net)
	}
	if in := fake.creates[1]; in.ConfigurationSetName != nil {
		t.Errorf("configuration set = %q, want none by default", aws.ToString(in.ConfigurationSetName))
	}

	list := c.must("domains", "list", "--workspace", ws)
	for _, name := range []string{"example.com", "mail.example.net"} {
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + `\s+pending\s+\d{4}-\d\d-\d\d\s*$`).MatchString(list) {
			t.Errorf("domains list does not show %s pending:\n%s", name, list)
		}
	}
	listed, _ := mustJSON[[]identity.Domain](c, "domains", "list", "--workspace", ws)
	if len(listed) != 2 || listed[0].Name != "mail.example.net" || listed[1].Name != "example.com" {
		t.Errorf("domains list --output json = %+v, want both, newest first", listed)
	}
	if empty := c.must("domains", "list", "--workspace", c.createWorkspace("Empty"), "--output", "json"); strings.TrimSpace(empty) != "[]" {
		t.Errorf("domains list of a workspace without domains = %q, want []", empty)
	}

	// status reads SES: verified goes into the workspace's verified domains,
	// a DKIM failure marks the domain failed and keeps it out.
	states := map[string]sestypes.DkimStatus{"example.com": sestypes.DkimStatusSuccess, "mail.example.net": sestypes.DkimStatusFailed}
	fake.get = identityAnswers(states)
	out = c.mustSES(fake, "domains", "status", "example.com", "--workspace", ws)
	if !regexp.MustCompile(`^example\.com\s+verified\s+\(DKIM SUCCESS\)\n$`).MatchString(out) {
		t.Errorf("domains status printed %q", out)
	}
	failed, _ := sesJSON[identity.Domain](c, fake, "domains", "status", "mail.example.net", "--workspace", ws)
	if failed.Name != "mail.example.net" || failed.Status != identity.DomainFailed || failed.VerifiedAt != nil {
		t.Errorf("domains status --output json = %+v, want failed", failed)
	}
	if d, err := c.store.Domains.GetDomain(ctx, ws, "example.com"); err != nil || d.Status != identity.DomainVerified || d.VerifiedAt == nil {
		t.Errorf("example.com = %+v (err %v), want verified", d, err)
	}
	if d, err := c.store.Domains.GetDomain(ctx, ws, "mail.example.net"); err != nil || d.Status != identity.DomainFailed {
		t.Errorf("mail.example.net = %+v (err %v), want failed", d, err)
	}
	if v := c.workspace(ws).VerifiedDomains; !slices.Equal(v, []string{"example.com"}) {
		t.Errorf("verified domains = %v, want [example.com]", v)
	}

	// A verified domain whose DKIM later fails leaves the verified list.
	states["example.com"] = sestypes.DkimStatusTemporaryFailure
	out = c.mustSES(fake, "domains", "status", "example.com", "--workspace", ws)
	if !strings.Contains(out, "failed") {
		t.Errorf("domains status after a DKIM failure printed %q", out)
	}
	if v := c.workspace(ws).VerifiedDomains; len(v) != 0 {
		t.Errorf("verified domains after the failure = %v, want none", v)
	}
	text := c.must("domains", "list", "--workspace", ws)
	if !regexp.MustCompile(`(?m)^example\.com\s+failed\s`).MatchString(text) || !regexp.MustCompile(`(?m)^mail\.example\.net\s+failed\s`).MatchString(text) {
		t.Errorf("domains list after status:\n%s", text)
	}

	// Without --configuration-set, the identity takes SESAME_CONFIG_SET_FULL.
	t.Setenv("SESAME_CONFIG_SET_FULL", "sesame-env-full")
	c.mustSES(fake, "domains", "add", "third.example", "--workspace", ws)
	if in := fake.creates[len(fake.creates)-1]; aws.ToString(in.ConfigurationSetName) != "sesame-env-full" {
		t.Errorf("configuration set = %q, want SESAME_CONFIG_SET_FULL's", aws.ToString(in.ConfigurationSetName))
	}
}

func TestDomainsCommandErrors(t *testing.T) {
	ctx := t.Context()
	c := newConsoleTable(t)
	ws := c.createWorkspace("Acme")
	other := c.createWorkspace("Other")
	if _, err := c.store.Domains.AddDomain(ctx, ws, "taken.example", nil); err != nil {
		t.Fatal(err)
	}
	denied := func(*sesv2.CreateEmailIdentityInput) (*sesv2.CreateEmailIdentityOutput, error) {
		return nil, errors.New("AccessDeniedException: not authorized to perform ses:CreateEmailIdentity")
	}
	cases := map[string]struct {
		args     []string
		fake     *consoleSES
		wantIs   error
		wantMsg  string
		wantCall bool // whether SES is reached before the failure
	}{
		"add without --workspace":    {args: []string{"domains", "add", "example.com"}, wantMsg: "--workspace is required"},
		"status without --workspace": {args: []string{"domains", "status", "example.com"}, wantMsg: "--workspace is required"},
		"list without --workspace":   {args: []string{"domains", "list"}, wantMsg: "--workspace is required"},
		"add without a domain":       {args: []string{"domains", "add", "--workspace", ws}, wantMsg: "accepts 1 arg"},
		"add a malformed domain":     {args: []string{"domains", "add", "exa mple", "--workspace", ws}, wantIs: identity.ErrInvalidDomain, wantMsg: "exa mple"},
		"SES refuses the identity": {args: []string{"domains", "add", "example.com", "--workspace", ws},
			fake: &consoleSES{create: denied}, wantMsg: "AccessDeniedException", wantCall: true},
		// Refused before SES is touched: its identities are account-wide.
		"add to an absent workspace": {args: []string{"domains", "add", "example.com", "--workspace", uuid.NewString()},
			fake: &consoleSES{create: createsWithTokens}, wantIs: workspace.ErrNotFound},
		"add a domain twice": {args: []string{"domains", "add", "taken.example", "--workspace", ws},
			fake: &consoleSES{create: createsWithTokens}, wantIs: identity.ErrDomainExists},
		"add another workspace's domain": {args: []string{"domains", "add", "taken.example", "--workspace", other},
			fake: &consoleSES{create: createsWithTokens}, wantIs: identity.ErrDomainTaken},
		"status of an identity SES lacks": {args: []string{"domains", "status", "taken.example", "--workspace", ws},
			fake: &consoleSES{get: identityAnswers(nil)}, wantIs: ses.ErrIdentityNotFound, wantCall: true},
		"status of a domain never added": {args: []string{"domains", "status", "example.com", "--workspace", ws},
			fake:   &consoleSES{get: identityAnswers(map[string]sestypes.DkimStatus{"example.com": sestypes.DkimStatusSuccess})},
			wantIs: identity.ErrDomainNotFound, wantCall: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			fake := tc.fake
			if fake == nil {
				fake = &consoleSES{}
			}
			out, err := c.runSES(fake, tc.args...)
			checkFails(t, tc.args, out, err, tc.wantIs, tc.wantMsg)
			if called := fake.calls() > 0; called != tc.wantCall {
				t.Errorf("SES called = %v, want %v", called, tc.wantCall)
			}
			if strings.Contains(out, "CNAME") {
				t.Errorf("a failed command printed DNS records:\n%s", out)
			}
		})
	}
	domains, _, _, err := c.store.Domains.ListDomains(ctx, ws, "", 10)
	if err != nil || len(domains) != 1 || domains[0].Name != "taken.example" || domains[0].Status != identity.DomainPending {
		t.Errorf("after the failures the domains are %+v (err %v), want taken.example pending alone", domains, err)
	}
	if v := c.workspace(ws).VerifiedDomains; len(v) != 0 {
		t.Errorf("failed commands verified %v", v)
	}
}

// Against the local stack (.sesame/dev.env sets SESAME_LOCAL_DATA), the
// domain commands work as they do against SES: the SES emulator has no
// identity API (they failed with "deserialization failed … invalid
// character '<'"), so the local stack keeps identities itself, pending
// when added and verified when read.
func TestDomainsOnTheLocalStack(t *testing.T) {
	emulatortest.Require(t, "AWS_ENDPOINT_URL_SESV2")
	c := newConsoleTable(t)
	ws := c.createWorkspace("Acme")
	t.Setenv("SESAME_LOCAL_DATA", t.TempDir())

	out := c.must("domains", "add", "local.example", "--workspace", ws)
	if !strings.Contains(out, "Added local.example (pending)") || strings.Count(out, "CNAME") != 3 {
		t.Errorf("domains add printed:\n%s", out)
	}
	out = c.must("domains", "status", "local.example", "--workspace", ws)
	if !regexp.MustCompile(`^local\.example\s+verified\s+\(DKIM SUCCESS\)\n$`).MatchString(out) {
		t.Errorf("domains status printed %q", out)
	}
	if v := c.workspace(ws).VerifiedDomains; !slices.Equal(v, []string{"local.example"}) {
		t.Errorf("verified domains = %v, want [local.example]", v)
	}
	again, _ := mustJSON[identity.Domain](c, "domains", "status", "local.example", "--workspace", ws)
	if again.Status != identity.DomainVerified || len(again.Records) != 3 {
		t.Errorf("domains status again = %+v", again)
	}

	// The local identities are never used against SES itself.
	t.Setenv("AWS_ENDPOINT_URL_SESV2", "")
	args := []string{"domains", "add", "real.example", "--workspace", ws}
	out, err := c.run(args...)
	checkFails(t, args, out, err, nil, "unset SESAME_LOCAL_DATA")
}
