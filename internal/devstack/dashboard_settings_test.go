package devstack_test

import (
	"context"
	"errors"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/sesame-mail/sesame/internal/account"
	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/identity"
)

// Domains and senders: no domain says how to add one; a domain shows its
// DKIM records and status; a sender on a foreign domain is refused on the
// page, one on the workspace's domain is added as the default.
func TestDashboardDomainsAndSenders(t *testing.T) {
	d := startDashboard(t)
	c, csrf := d.signIn(t, d.owner)
	if p := d.dashDo(t, c, "/dashboard/settings/domains", nil); !strings.Contains(p.body, "No sending domain yet") {
		t.Errorf("no domains: %s", p.body)
	}
	records := []identity.DNSRecord{{Type: "CNAME", Name: "abc._domainkey.shop.example", Value: "abc.dkim.amazonses.com"}}
	if _, err := d.store.Domains.AddDomain(t.Context(), d.ws, "shop.example", records); err != nil {
		t.Fatal(err)
	}
	p := d.dashDo(t, c, "/dashboard/settings/domains", nil)
	for _, want := range []string{"<code>abc._domainkey.shop.example</code>", "<code>abc.dkim.amazonses.com</code>", `class="domain-status">pending`} {
		if !strings.Contains(p.body, want) {
			t.Errorf("domains page lacks %q: %s", want, p.body)
		}
	}
	if p := d.dashDo(t, c, "/dashboard/settings/senders", nil); !strings.Contains(p.body, "No sender yet") {
		t.Errorf("no senders: %s", p.body)
	}
	foreign := url.Values{"csrf": {csrf}, "from": {"Shop <hi@elsewhere.example>"}}
	if p := d.dashDo(t, c, "/dashboard/settings/senders", foreign); p.status != http.StatusBadRequest || !strings.Contains(p.body, "elsewhere.example is not a domain of this workspace") {
		t.Errorf("a foreign domain's sender: %d %s", p.status, p.body)
	}
	ok := url.Values{"csrf": {csrf}, "from": {"Shop <hi@shop.example>"}, "reply-to": {"help@shop.example"}, "default": {"yes"}}
	if p := d.dashDo(t, c, "/dashboard/settings/senders", ok); p.status != http.StatusOK || !strings.Contains(p.body, "<td>default</td>") {
		t.Errorf("add a default sender: %d %s", p.status, p.body)
	}
	ws, _ := d.store.Workspaces.GetWorkspace(t.Context(), d.ws)
	if ws.DefaultSender == nil || ws.DefaultSender.Email != "hi@shop.example" {
		t.Errorf("default sender %+v", ws.DefaultSender)
	}
	wantNewestAudit(t, d, account.ActionSenderAdded)
}

// Workspace settings: the form changes every setting as the console's
// flags do; an out-of-range allowance or a two-line postal address is
// refused on the page and changes nothing.
func TestDashboardWorkspaceSettings(t *testing.T) {
	d := startDashboard(t)
	c, csrf := d.signIn(t, d.owner)
	form := url.Values{"csrf": {csrf}, "postal-address": {"Shop Ltd, 1 Main St"}, "brands": {"Shop, ShopCo"},
		"monthly-allowance": {"5000"}, "default-tracking": {"essential"}, "tracking-off-provisioned": {"yes"}, "bulk-approved": {"yes"}}
	if p := d.dashDo(t, c, "/dashboard/settings/workspace", form); p.status != http.StatusOK || !strings.Contains(p.body, "The settings are saved") {
		t.Fatalf("save: %d %s", p.status, p.body)
	}
	ws, err := d.store.Workspaces.GetWorkspace(t.Context(), d.ws)
	if err != nil {
		t.Fatal(err)
	}
	if ws.PostalAddress != "Shop Ltd, 1 Main St" || strings.Join(ws.Brands, "|") != "Shop|ShopCo" || ws.MonthlyAllowance != 5000 ||
		ws.DefaultTracking != "essential" || !ws.TrackingOffProvisioned || !ws.BulkApproved {
		t.Errorf("workspace after saving: %+v", ws)
	}
	for name, change := range map[string][2]string{
		"negative allowance": {"monthly-allowance", "-1"},
		"two-line address":   {"postal-address", "Shop Ltd\n1 Main St"},
	} {
		bad := url.Values{}
		for k, v := range form {
			bad[k] = v
		}
		bad.Set(change[0], change[1])
		p := d.dashDo(t, c, "/dashboard/settings/workspace", bad)
		if p.status != http.StatusBadRequest || !strings.Contains(p.body, `role="alert">`+change[0]) {
			t.Errorf("%s: %d %s", name, p.status, p.body)
		}
		// The form comes back as posted, the refused value included.
		if change[0] == "monthly-allowance" && !strings.Contains(p.body, `value="`+change[1]+`"`) ||
			!strings.Contains(p.body, `value="`+html.EscapeString(form.Get("brands"))+`"`) {
			t.Errorf("%s: the refused form lost what was typed: %s", name, p.body)
		}
	}
	if again, _ := d.store.Workspaces.GetWorkspace(t.Context(), d.ws); again.MonthlyAllowance != 5000 || again.PostalAddress != ws.PostalAddress {
		t.Errorf("a refused form changed the workspace: %+v", again)
	}
	wantNewestAudit(t, d, account.ActionWorkspaceChanged)
}

var secretRE = regexp.MustCompile(`id="wh-secret" class="secret" readonly value="([^"]+)"`)

// Rotating an endpoint's secret shows the new one once (audited), says
// until when the old one signs, and another workspace's endpoint is 404.
func TestDashboardWebhookRotation(t *testing.T) {
	d := startDashboard(t)
	c, csrf := d.signIn(t, d.owner)
	p := d.dashDo(t, c, "/dashboard/settings/webhooks", url.Values{"csrf": {csrf}, "url": {"https://example.com/hooks"}})
	if p.status != http.StatusSeeOther {
		t.Fatalf("add endpoint: %d", p.status)
	}
	path := p.header.Get("Location")
	old, _ := d.store.Webhooks.ListEndpoints(t.Context(), d.ws)
	p = d.dashDo(t, c, path+"/rotate", url.Values{"csrf": {csrf}})
	m := secretRE.FindStringSubmatch(p.body)
	if p.status != http.StatusOK || m == nil || !strings.Contains(p.body, `id="wh-old-until"`) {
		t.Fatalf("rotate: %d %s", p.status, p.body)
	}
	eps, _ := d.store.Webhooks.ListEndpoints(t.Context(), d.ws)
	if m[1] = html.UnescapeString(m[1]); m[1] != eps[0].Secret || eps[0].PreviousSecret != old[0].Secret || m[1] == old[0].Secret {
		t.Errorf("shown %q; endpoint secret %q, previous %q, before %q", m[1], eps[0].Secret, eps[0].PreviousSecret, old[0].Secret)
	}
	wantNewestAudit(t, d, account.ActionWebhookRotated, account.ActionWebhookAdded)

	other := startDashboardOn(t, d)
	oc, ocsrf := d.signIn(t, other)
	if p := d.dashDo(t, oc, path+"/rotate", url.Values{"csrf": {ocsrf}}); p.status != http.StatusNotFound {
		t.Errorf("rotate another workspace's endpoint: %d, want 404", p.status)
	}
}

// startDashboardOn adds a workspace with its own owner to d's dev server;
// it returns the owner's address.
func startDashboardOn(t *testing.T, d *dash) string {
	t.Helper()
	address := "other-" + d.owner
	d.ownedWorkspace(t, address)
	return address
}

// The key form: a deliberate scope without the confirmation, scopes
// ticked with a fixed preset, and an unknown environment are refused (400)
// with the form as filled and no key made; with the confirmation the
// custom key has exactly the ticked scopes.
func TestDashboardKeyForm(t *testing.T) {
	d := startDashboard(t)
	c, csrf := d.signIn(t, d.owner)
	before, _ := d.store.Keys.ListKeys(t.Context(), d.ws)
	bulk := url.Values{"csrf": {csrf}, "name": {"Bulk key"}, "env": {"test"}, "preset": {"custom"}, "scopes": {"email:send_bulk", "emails:read"}}
	cases := map[string]struct {
		form url.Values
		want []string
	}{
		"a deliberate scope unconfirmed": {bulk, []string{"tick the confirmation", `value="Bulk key"`, `value="test" checked`,
			`value="custom" selected`, `value="email:send_bulk" checked`, `value="emails:read" checked`}},
		"scopes with a fixed preset": {url.Values{"csrf": {csrf}, "name": {"Sender"}, "env": {"live"}, "preset": {"send"}, "scopes": {"emails:read"}},
			[]string{"only taken with the custom preset", `value="Sender"`, `value="send" selected`, `value="emails:read" checked`}},
		"an unknown environment": {url.Values{"csrf": {csrf}, "name": {"Odd"}, "env": {"staging"}, "preset": {"full"}},
			[]string{"env must be live or test", `value="Odd"`}},
	}
	for name, tc := range cases {
		p := d.dashDo(t, c, "/dashboard/settings/keys", tc.form)
		if p.status != http.StatusBadRequest {
			t.Errorf("%s: %d, want 400", name, p.status)
		}
		for _, w := range tc.want {
			if !strings.Contains(p.body, w) {
				t.Errorf("%s: the page lacks %s", name, w)
			}
		}
	}
	if keys, _ := d.store.Keys.ListKeys(t.Context(), d.ws); len(keys) != len(before) {
		t.Fatalf("%d keys after refused forms, want %d", len(keys), len(before))
	}
	bulk.Set("confirm-deliberate", "yes")
	if p := d.dashDo(t, c, "/dashboard/settings/keys", bulk); p.status != http.StatusOK || !strings.Contains(p.body, "ps_test_") {
		t.Fatalf("confirmed: %d", p.status)
	}
	keys, _ := d.store.Keys.ListKeys(t.Context(), d.ws)
	for _, k := range keys {
		if k.Name == "Bulk key" && !slices.Equal(slices.Sorted(slices.Values(k.Scopes)), []apikey.Scope{apikey.EmailSendBulk, apikey.EmailsRead}) {
			t.Errorf("the confirmed key's scopes: %v", k.Scopes)
		}
	}
}

// Regenerate and revoke ask first: the first POST shows what will break
// and changes nothing; the confirmed one acts (the old key refused, the
// new one shown once and working; the revoked key refused).
func TestDashboardKeyActionsAsk(t *testing.T) {
	d := startDashboard(t)
	c, csrf := d.signIn(t, d.owner)
	plain, k, err := d.store.Keys.CreateKey(t.Context(), d.ws, apikey.Live, "Checkout", nil)
	if err != nil {
		t.Fatal(err)
	}
	keys := "/dashboard/settings/keys/" + k.ID
	ask := d.dashDo(t, c, keys+"/regenerate", url.Values{"csrf": {csrf}})
	if ask.status != http.StatusOK || !strings.Contains(ask.body, "Regenerate the key <strong>Checkout</strong>") || !strings.Contains(ask.body, `name="confirm" value="yes"`) {
		t.Fatalf("regenerate, unconfirmed: %d %s", ask.status, ask.body)
	}
	if r := d.get("Bearer "+plain, "/api/v1/emails"); r.status != http.StatusOK {
		t.Fatalf("the key answers %d before the regeneration is confirmed", r.status)
	}
	done := d.dashDo(t, c, keys+"/regenerate", url.Values{"csrf": {csrf}, "confirm": {"yes"}})
	m := regexp.MustCompile(`id="new-key" class="secret" readonly value="([^"]+)"`).FindStringSubmatch(done.body)
	if done.status != http.StatusOK || m == nil {
		t.Fatalf("regenerate, confirmed: %d %s", done.status, done.body)
	}
	if r := d.get("Bearer "+plain, "/api/v1/emails"); r.status != http.StatusUnauthorized {
		t.Errorf("the old key answers %d after its regeneration, want 401", r.status)
	}
	fresh := m[1]
	if r := d.get("Bearer "+fresh, "/api/v1/emails"); r.status != http.StatusOK {
		t.Errorf("the regenerated key answers %d", r.status)
	}

	if ask := d.dashDo(t, c, keys+"/revoke", url.Values{"csrf": {csrf}}); ask.status != http.StatusOK || !strings.Contains(ask.body, "Revoke the key <strong>Checkout</strong>") {
		t.Fatalf("revoke, unconfirmed: %d %s", ask.status, ask.body)
	}
	if r := d.get("Bearer "+fresh, "/api/v1/emails"); r.status != http.StatusOK {
		t.Fatalf("the key answers %d before the revocation is confirmed", r.status)
	}
	if p := d.dashDo(t, c, keys+"/revoke", url.Values{"csrf": {csrf}, "confirm": {"yes"}}); p.status != http.StatusSeeOther {
		t.Fatalf("revoke, confirmed: %d", p.status)
	}
	if r := d.get("Bearer "+fresh, "/api/v1/emails"); r.status != http.StatusUnauthorized {
		t.Errorf("the revoked key answers %d, want 401", r.status)
	}
	if ask := d.dashDo(t, c, keys+"/revoke", url.Values{"csrf": {csrf}}); ask.status != http.StatusNotFound {
		t.Errorf("asking to revoke a revoked key: %d, want 404", ask.status)
	}
}

// Adding an endpoint: a URL the service refuses is a 400 with its
// reason; a store fault is the 503 page, its text never shown.
func TestDashboardAddWebhookRefusals(t *testing.T) {
	d := startDashboard(t)
	c, csrf := d.signIn(t, d.owner)
	if p := d.dashDo(t, c, "/dashboard/settings/webhooks", url.Values{"csrf": {csrf}, "url": {"not a url"}}); p.status != http.StatusBadRequest || !strings.Contains(p.body, "url: ") {
		t.Errorf("a bad URL: %d %s", p.status, p.body)
	}
	d.rec.Via = func(op string) dynamo.DB {
		if op == "TransactWriteItems" {
			return transactionsDown{d.rec.DB}
		}
		return nil
	}
	p := d.dashDo(t, c, "/dashboard/settings/webhooks", url.Values{"csrf": {csrf}, "url": {"https://example.com/hooks"}})
	d.rec.Via = nil
	if p.status != http.StatusServiceUnavailable || p.header.Get("Retry-After") == "" || strings.Contains(p.body, "throttled") {
		t.Errorf("the endpoint's write failing: %d, Retry-After %q:\n%s", p.status, p.header.Get("Retry-After"), p.body)
	}
	if eps, _ := d.store.Webhooks.ListEndpoints(t.Context(), d.ws); len(eps) != 0 {
		t.Errorf("%d endpoints after refusals, want none", len(eps))
	}
}

// transactionsDown fails every transaction (the endpoint's write) and
// passes every other call to DB.
type transactionsDown struct{ dynamo.DB }

func (d transactionsDown) TransactWriteItems(context.Context, *dynamodb.TransactWriteItemsInput, ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	return nil, errors.New("throttled")
}
