package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/sesv2"
	sestypes "github.com/aws/aws-sdk-go-v2/service/sesv2/types"
	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/api"
	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/config"
	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/queue/queuetest"
	"github.com/sesame-mail/sesame/internal/review"
	"github.com/sesame-mail/sesame/internal/sending"
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

func (c *consoleTable) workspace(id string) workspace.Workspace {
	c.t.Helper()
	ws, err := c.store.GetWorkspace(context.Background(), id)
	if err != nil {
		c.t.Fatal(err)
	}
	return ws
}

func TestDomainsCommands(t *testing.T) {
	ctx := context.Background()
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
	d, err := c.store.GetDomain(ctx, ws, "example.com")
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
	if d, err := c.store.GetDomain(ctx, ws, "example.com"); err != nil || d.Status != identity.DomainVerified || d.VerifiedAt == nil {
		t.Errorf("example.com = %+v (err %v), want verified", d, err)
	}
	if d, err := c.store.GetDomain(ctx, ws, "mail.example.net"); err != nil || d.Status != identity.DomainFailed {
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
}

// sesJSON runs a command with --output json and the fake SES, and decodes
// what it printed.
func sesJSON[T any](c *consoleTable, api ses.API, args ...string) (T, string) {
	c.t.Helper()
	out := c.mustSES(api, append(args, "--output", "json")...)
	var v T
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		c.t.Fatalf("sesame %s printed invalid JSON: %v\n%s", strings.Join(args, " "), err, out)
	}
	return v, out
}

func TestDomainsCommandErrors(t *testing.T) {
	ctx := context.Background()
	c := newConsoleTable(t)
	ws := c.createWorkspace("Acme")
	other := c.createWorkspace("Other")
	if _, err := c.store.AddDomain(ctx, ws, "taken.example", nil); err != nil {
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
	domains, _, _, err := c.store.ListDomains(ctx, ws, "", 10)
	if err != nil || len(domains) != 1 || domains[0].Name != "taken.example" || domains[0].Status != identity.DomainPending {
		t.Errorf("after the failures the domains are %+v (err %v), want taken.example pending alone", domains, err)
	}
	if v := c.workspace(ws).VerifiedDomains; len(v) != 0 {
		t.Errorf("failed commands verified %v", v)
	}
}

func TestSendersCommands(t *testing.T) {
	ctx := context.Background()
	c := newConsoleTable(t)
	ws := c.createWorkspace("Acme")
	if _, err := c.store.AddDomain(ctx, ws, "example.com", nil); err != nil {
		t.Fatal(err)
	}

	out := c.must("senders", "add", "--workspace", ws, "--from", "Acme <hello@example.com>", "--reply-to", "help@example.com", "--default")
	id := strings.TrimSpace(out)
	if _, err := uuid.Parse(id); err != nil || strings.Count(out, "\n") != 1 {
		t.Fatalf("senders add printed %q, want just the new id", out)
	}
	s, err := c.store.GetSender(ctx, ws, id)
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
		s, err := c.store.GetSender(ctx, ws, strings.TrimSpace(out))
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
	ctx := context.Background()
	c := newConsoleTable(t)
	ws := c.createWorkspace("Acme")
	other := c.createWorkspace("Other")
	for _, d := range []struct{ ws, name string }{{ws, "example.com"}, {other, "other.example"}} {
		if _, err := c.store.AddDomain(ctx, d.ws, d.name, nil); err != nil {
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
		if senders, err := c.store.ListSenders(ctx, id); err != nil || len(senders) != 0 {
			t.Errorf("failed commands left senders in %s: %+v (err %v)", id, senders, err)
		}
		if def := c.workspace(id).DefaultSender; def != nil {
			t.Errorf("failed commands set a default sender %+v", def)
		}
	}
}

func TestWorkspaceSet(t *testing.T) {
	c := newConsoleTable(t)
	ws := c.createWorkspace("Acme")
	other := c.createWorkspace("Other")

	out := c.must("workspace", "set", ws, "--monthly-allowance", "100", "--tracking-off-provisioned",
		"--default-tracking", "essential", "--brands", "Acme,AcmeCo")
	for _, re := range []string{`(?m)^monthly allowance\s+100$`, `(?m)^tracking off provisioned\s+true$`,
		`(?m)^default tracking\s+essential$`, `(?m)^brands\s+\[Acme AcmeCo\]$`} {
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
		"no id":                  {args: []string{"workspace", "set", "--monthly-allowance", "5"}, wantMsg: "accepts 1 arg"},
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
	if all, err := c.store.ListWorkspaces(context.Background()); err != nil || len(all) != 2 {
		t.Errorf("workspaces = %+v (err %v), want the two created", all, err)
	}
}

func TestSuppressionsAdd(t *testing.T) {
	ctx := context.Background()
	c := newConsoleTable(t)
	ws := c.createWorkspace("Acme")
	other := c.createWorkspace("Other")
	suppressed := func(t *testing.T, workspaceID, recipient string) bool {
		t.Helper()
		sc, err := c.store.LoadContext(ctx, sending.ContextQuery{WorkspaceID: workspaceID, Recipient: recipient, Fingerprint: "x", Month: "2026-11"})
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
		"not an address":    {args: []string{"suppressions", "add", "ann at example.org", "--workspace", ws}, wantMsg: "mail:"},
		"CRLF":              {args: []string{"suppressions", "add", "dan@example.org\r\nBcc: x@example.org", "--workspace", ws}, wantMsg: "line breaks are not allowed"},
		"two addresses":     {args: []string{"suppressions", "add", "dan@example.org, eve@example.org", "--workspace", ws}, wantMsg: "mail:"},
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

// heldEmails puts held emails into a workspace as the send path does.
type heldEmails struct {
	t     *testing.T
	c     *consoleTable
	ws    string
	seen  map[string]bool // templates already held
	token string          // makes subjects unique in the shared SES emulator
}

// hold holds an email with body html; it returns the email's id.
func (h *heldEmails) hold(subject, html string) string {
	h.t.Helper()
	id := uuid.Must(uuid.NewV7()).String()
	fp := review.Fingerprint(html)
	he := sending.HeldEmail{
		Email: email.Email{
			ID: id, WorkspaceID: h.ws, To: "bob@example.org", Subject: subject + " " + h.token,
			Status: email.StatusHeld, Type: email.TypeTransactional, Environment: apikey.Live,
			SentAt: time.Now(), TrackingMode: email.TrackingFull,
		},
		Fingerprint: fp,
		Request:     sending.Request{To: "bob@example.org", Subject: subject + " " + h.token, HTML: html},
		From:        `"Acme" <hello@example.com>`,
		ReplyTo:     []string{"help@example.com"},
	}
	if _, err := h.c.store.HoldEmail(context.Background(), he, !h.seen[fp], nil); err != nil {
		h.t.Fatal(err)
	}
	h.seen[fp] = true
	return id
}

func (h *heldEmails) email(id string) email.Email {
	h.t.Helper()
	e, err := h.c.store.GetEmail(context.Background(), h.ws, id)
	if err != nil {
		h.t.Fatal(err)
	}
	return e
}

// emulatedSubjects counts the messages the SES emulator captured, by subject.
func emulatedSubjects(t *testing.T) map[string]int {
	t.Helper()
	all, err := ses.ReadEmulatorStore(context.Background(), os.Getenv("AWS_ENDPOINT_URL_SESV2"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, m := range all {
		out[m.Subject]++
	}
	return out
}

func TestHeldCommands(t *testing.T) {
	ctx := context.Background()
	dynamotest.RequireEmulators(t, "AWS_ENDPOINT_URL_SESV2")
	c := newConsoleTable(t)
	// The console records the owner's decision and queues the review of
	// each email held with the template, as it does against a deployed
	// stack; the review function (here: the same consumer, driven by the
	// test) sends them through SES, the emulator.
	for _, name := range []string{"SESAME_CONFIG_SET_FULL", "SESAME_CONFIG_SET_ESSENTIAL", "SESAME_CONFIG_SET_OFF", "SESAME_WEBHOOKS_QUEUE_URL"} {
		t.Setenv(name, "")
	}
	queues := queuetest.New(t, queue.Review)
	t.Setenv("SESAME_REVIEW_QUEUE_URL", queues.URL(t, queue.Review.Name))
	awsCfg, err := awsconfig.LoadDefaultConfig(ctx)
	if err != nil {
		t.Fatal(err)
	}
	clients := api.NewClients(awsCfg)
	clients.DynamoDB, clients.SQS = c.store.DB, queuetest.Client(t)
	deps := api.NewDeps(config.API{Table: c.name, ReviewQueueURL: queues.URL(t, queue.Review.Name)}, clients, api.NewLogger(8))
	reviews := queues.Poller(t, queue.Review.Name, queue.NewConsumer(deps.Reviewer.Handle))
	reviewAll := func() {
		t.Helper()
		for range 10 {
			n, err := reviews.PollOnce(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				return
			}
		}
	}
	ws := c.createWorkspace("Acme")
	h := &heldEmails{t: t, c: c, ws: ws, seen: map[string]bool{}, token: uuid.NewString()}
	denyHTML := `<table><tr><td>Your code is <b>1234</b></td></tr></table>`
	clearHTML := `<div><p>Hello %s, your order has shipped.</p><a href="https://example.com/o">Track it</a></div>`
	denied := h.hold("Your code", denyHTML)
	cleared := h.hold("Order shipped", strings.Replace(clearHTML, "%s", "Bob", 1))
	sameTemplate := h.hold("Order shipped again", strings.Replace(clearHTML, "%s", "Ann", 1))
	// Same layout, but it names a brand the workspace does not own: only
	// the email the owner cleared by hand skips the brand check.
	foreign := h.hold("Your PayPal order", strings.Replace(clearHTML, "%s", "PayPal customer", 1))
	live := uuid.Must(uuid.NewV7()).String()
	if err := c.store.PutEmail(ctx, email.Email{ID: live, WorkspaceID: ws, To: "zed@example.org", Subject: "Not held",
		Status: email.StatusSent, Type: email.TypeTransactional, Environment: apikey.Live, SentAt: time.Now()}); err != nil {
		t.Fatal(err)
	}

	list := c.must("held", "list", "--workspace", ws)
	for _, id := range []string{denied, cleared, sameTemplate, foreign} {
		if !regexp.MustCompile(`(?m)^` + id + `\s+\S+\s+held\s+live\s+bob@example\.org\s+\S`).MatchString(list) {
			t.Errorf("held list does not show %s:\n%s", id, list)
		}
	}
	if strings.Contains(list, live) || strings.Contains(list, "Not held") {
		t.Errorf("held list shows a sent email:\n%s", list)
	}
	views, _ := mustJSON[[]email.View](c, "held", "list", "--workspace", ws)
	var ids []string
	for _, v := range views {
		ids = append(ids, v.ID)
		if v.Status != email.StatusHeld {
			t.Errorf("held list --output json has %s with status %s", v.ID, v.Status)
		}
	}
	if want := []string{foreign, sameTemplate, cleared, denied}; !slices.Equal(ids, want) {
		t.Errorf("held list --output json ids = %v, want %v (newest first)", ids, want)
	}

	// deny: the email fails with the owner's reason; the template is denied.
	if out := c.must("held", "deny", denied, "--workspace", ws); !strings.HasPrefix(out, "denied "+denied) {
		t.Errorf("held deny printed %q", out)
	}
	reviewAll()
	if e := h.email(denied); e.Status != email.StatusFailed || !strings.Contains(e.Error, "denied by the workspace owner") {
		t.Errorf("denied email = status %s, error %q; want failed naming the owner", e.Status, e.Error)
	}
	if tpl, err := c.store.GetTemplate(ctx, ws, review.Fingerprint(denyHTML)); err != nil || tpl.State != sending.TemplateDenied {
		t.Errorf("denied template = %+v (err %v)", tpl, err)
	}
	if _, err := c.store.GetHeld(ctx, ws, denied); !errors.Is(err, sending.ErrNotHeld) {
		t.Errorf("denied email's held content: err = %v, want ErrNotHeld", err)
	}
	if e := h.email(cleared); e.Status != email.StatusHeld {
		t.Errorf("denying one template released another's email: %s", e.Status)
	}

	// clear: the email and the others held with its template are sent
	// through SES (the emulator).
	res, _ := mustJSON[map[string]string](c, "held", "clear", cleared, "--workspace", ws)
	if res["cleared"] != cleared {
		t.Errorf("held clear --output json = %v", res)
	}
	reviewAll()
	for _, id := range []string{cleared, sameTemplate} {
		if e := h.email(id); e.Status != email.StatusSent || e.Error != "" {
			t.Errorf("email %s after clear = status %s, error %q; want sent", id, e.Status, e.Error)
		}
	}
	// The email naming a foreign brand was not the one the owner looked at:
	// it stays held for a decision of its own.
	if e := h.email(foreign); e.Status != email.StatusHeld {
		t.Errorf("email naming a foreign brand after clear = status %s, error %q; want still held", e.Status, e.Error)
	}
	if tpl, err := c.store.GetTemplate(ctx, ws, review.Fingerprint(clearHTML)); err != nil || tpl.State != sending.TemplateCleared {
		t.Errorf("cleared template = %+v (err %v)", tpl, err)
	}
	got := emulatedSubjects(t)
	for subject, want := range map[string]int{"Order shipped": 1, "Order shipped again": 1, "Your PayPal order": 0, "Your code": 0} {
		if n := got[subject+" "+h.token]; n != want {
			t.Errorf("SES emulator has %d messages %q, want %d", n, subject, want)
		}
	}
	if after := c.must("held", "list", "--workspace", ws); strings.Count(after, "\n") != 2 || !strings.Contains(after, foreign) {
		t.Errorf("held list after the decisions should show only the foreign-brand email:\n%s", after)
	}
	// The owner denies it: that email alone fails; the template stays cleared.
	c.must("held", "deny", foreign, "--workspace", ws)
	reviewAll()
	if e := h.email(foreign); e.Status != email.StatusFailed || !strings.Contains(e.Error, "denied by the workspace owner") {
		t.Errorf("denied foreign-brand email = status %s, error %q", e.Status, e.Error)
	}
	if tpl, err := c.store.GetTemplate(ctx, ws, review.Fingerprint(clearHTML)); err != nil || tpl.State != sending.TemplateCleared {
		t.Errorf("denying one email changed its cleared template: %+v (err %v)", tpl, err)
	}
	if e := h.email(live); e.Status != email.StatusSent {
		t.Errorf("a sent email was changed to %s", e.Status)
	}

	cases := map[string]struct {
		args    []string
		wantIs  error
		wantMsg string
	}{
		"clear an unknown id":        {args: []string{"held", "clear", uuid.NewString(), "--workspace", ws}, wantIs: sending.ErrNotHeld},
		"deny an unknown id":         {args: []string{"held", "deny", uuid.NewString(), "--workspace", ws}, wantIs: sending.ErrNotHeld},
		"clear a sent email":         {args: []string{"held", "clear", cleared, "--workspace", ws}, wantIs: sending.ErrNotHeld, wantMsg: cleared},
		"deny a released email":      {args: []string{"held", "deny", sameTemplate, "--workspace", ws}, wantIs: sending.ErrNotHeld},
		"clear in another workspace": {args: []string{"held", "clear", cleared, "--workspace", c.createWorkspace("Other")}, wantIs: sending.ErrNotHeld},
		"clear without workspace":    {args: []string{"held", "clear", cleared}, wantMsg: "--workspace is required"},
		"list without workspace":     {args: []string{"held", "list"}, wantMsg: "--workspace is required"},
		"clear without an id":        {args: []string{"held", "clear", "--workspace", ws}, wantMsg: "accepts 1 arg"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			out, err := c.run(tc.args...)
			checkFails(t, tc.args, out, err, tc.wantIs, tc.wantMsg)
		})
	}
	if n := emulatedSubjects(t)["Order shipped "+h.token]; n != 1 {
		t.Errorf("after the failed commands the cleared email was sent %d times, want once", n)
	}
	if e := h.email(sameTemplate); e.Status != email.StatusSent {
		t.Errorf("deny of a released email changed it to %s", e.Status)
	}
}

func TestCapturedList(t *testing.T) {
	ctx := context.Background()
	c := newConsoleTable(t)
	ws := c.createWorkspace("Acme")
	other := c.createWorkspace("Other")
	put := func(workspaceID string, env apikey.Environment, status email.Status, subject string) string {
		t.Helper()
		id := uuid.Must(uuid.NewV7()).String()
		if err := c.store.PutEmail(ctx, email.Email{ID: id, WorkspaceID: workspaceID, To: "bob@example.org", Subject: subject,
			Status: status, Type: email.TypeTransactional, Environment: env, SentAt: time.Now()}); err != nil {
			t.Fatal(err)
		}
		return id
	}
	first := put(ws, apikey.Test, email.StatusSent, "Captured one")
	liveID := put(ws, apikey.Live, email.StatusSent, "Live one")
	second := put(ws, apikey.Test, email.StatusDelivered, "Captured two")
	foreign := put(other, apikey.Test, email.StatusSent, "Other workspace")

	list := c.must("captured", "list", "--workspace", ws)
	for id, subject := range map[string]string{first: "Captured one", second: "Captured two"} {
		if !regexp.MustCompile(`(?m)^` + id + `\s+\S+\s+\w+\s+test\s+bob@example\.org\s+` + subject + `\s*$`).MatchString(list) {
			t.Errorf("captured list does not show %s:\n%s", id, list)
		}
	}
	for _, absent := range []string{liveID, "Live one", foreign, "Other workspace"} {
		if strings.Contains(list, absent) {
			t.Errorf("captured list shows %q:\n%s", absent, list)
		}
	}
	views, _ := mustJSON[[]email.View](c, "captured", "list", "--workspace", ws)
	var ids []string
	for _, v := range views {
		ids = append(ids, v.ID)
		if v.Environment != string(apikey.Test) {
			t.Errorf("captured list --output json has %s in environment %q", v.ID, v.Environment)
		}
	}
	if want := []string{second, first}; !slices.Equal(ids, want) {
		t.Errorf("captured list --output json ids = %v, want %v (newest first)", ids, want)
	}
	if empty := c.must("captured", "list", "--workspace", c.createWorkspace("Empty"), "--output", "json"); strings.TrimSpace(empty) != "[]" {
		t.Errorf("captured list of an empty workspace = %q, want []", empty)
	}
	if _, err := c.run("captured", "list"); err == nil || !strings.Contains(err.Error(), "--workspace is required") {
		t.Errorf("captured list without --workspace: err = %v", err)
	}
}
