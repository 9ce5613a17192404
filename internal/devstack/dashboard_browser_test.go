package devstack_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/sesame-mail/sesame/internal/account"
	"github.com/sesame-mail/sesame/internal/status"
)

// css is a CSS selector, for brevity.
type css = chromedp.CSS

// The owner's path through the dashboard in Chromium: redirected to
// sign-in, a link by email (read from the SES emulator), confirmed with a
// click; the overview; a key created, shown once, working, then revoked;
// a webhook endpoint added and its secret revealed; the audit log of all
// of it. Every screen passes axe-core with no serious or critical
// violation, and make screenshots writes each one.
func TestDashboardInBrowser(t *testing.T) {
	d := startDashboard(t)
	seedMetrics(t, d)
	tab := newTab(t)
	run(t, tab, chromedp.Navigate(d.url+"/dashboard/settings/keys"), chromedp.WaitVisible(css("#email")))
	if loc := do(t, tab, chromedp.Location()); loc != d.url+"/dashboard/sign-in" {
		t.Fatalf("without a session the browser is at %s, want the sign-in page", loc)
	}
	checkA11y(t, tab, "sign-in")
	screenshot(t, tab, "sign-in")

	run(t, tab, chromedp.SendKeys(css("#email"), d.owner), click(css("main button[type=submit]")),
		chromedp.WaitVisible(css("main [role=status]")))
	checkA11y(t, tab, "sign-in-sent")
	links := signInLinks(t, d.owner)
	if len(links) != 1 {
		t.Fatalf("the SES emulator has %d links for the owner, want 1", len(links))
	}
	run(t, tab, chromedp.Navigate(links[0]), chromedp.WaitVisible(css("main button[type=submit]")))
	checkA11y(t, tab, "sign-in-confirm")
	screenshot(t, tab, "sign-in-confirm")
	run(t, tab, click(css("main button[type=submit]")), chromedp.WaitVisible(css("#waiting")))
	d.visit(t, tab, "/dashboard/", "overview")
	if n := eval[int](t, tab, `document.querySelectorAll("svg.chart polyline").length`); n != 6 {
		t.Errorf("the overview's chart has %d lines, want 6", n)
	}
	if got := eval[string](t, tab, `document.querySelector("table.totals tbody").innerText.trim().split(/\s+/).join(" ")`); got != "30 28 2 0 9 3" {
		t.Errorf("overview totals %q, want 30 28 2 0 9 3", got)
	}
	if cls := eval[string](t, tab, `document.querySelector(".rates div").className`); cls != "over" {
		t.Errorf("a 6.67 %% bounce rate is shown as %q, want over the threshold", cls)
	}

	// A key: created with full access, shown once, working; then revoked.
	d.visit(t, tab, "/dashboard/settings/keys", "keys")
	run(t, tab, chromedp.SendKeys(css("#key-name"), "browser key"), click(css("form.stack button[type=submit]")),
		chromedp.WaitVisible(css("#new-key")))
	key := value(t, tab, "#new-key")
	checkA11y(t, tab, "keys-created")
	screenshot(t, tab, "keys-created")
	if r := d.get("Bearer "+key, "/api/v1/emails"); r.status != http.StatusOK {
		t.Fatalf("the key the dashboard showed answers %d", r.status)
	}
	run(t, tab, chromedp.Navigate(d.url+"/dashboard/settings/keys"), chromedp.WaitVisible(css(`button[aria-label="Revoke browser key"]`)),
		click(css(`button[aria-label="Revoke browser key"]`)), chromedp.WaitVisible(css("#confirm-action")))
	if r := d.get("Bearer "+key, "/api/v1/emails"); r.status != http.StatusOK {
		t.Fatalf("the key answers %d before the revocation is confirmed", r.status)
	}
	checkA11y(t, tab, "key-confirm")
	screenshot(t, tab, "key-confirm")
	run(t, tab, click(css("#confirm-action")), chromedp.WaitVisible(css("tr.revoked")))
	if r := d.get("Bearer "+key, "/api/v1/emails"); r.status != http.StatusUnauthorized {
		t.Errorf("the revoked key answers %d, want 401", r.status)
	}
	if html := eval[string](t, tab, `document.body.innerHTML`); strings.Contains(html, key) {
		t.Error("the key is shown again after it was created")
	}

	// A webhook endpoint: added, its secret revealed (and audited).
	d.visit(t, tab, "/dashboard/settings/webhooks", "webhooks")
	run(t, tab, chromedp.SendKeys(css("#wh-url"), "https://example.com/hooks"), click(css("form.stack button[type=submit]")),
		chromedp.WaitVisible(css("#wh-state")))
	checkA11y(t, tab, "webhook")
	run(t, tab, click(css(`form[action$="/secret"] button`)), chromedp.WaitVisible(css("#wh-secret")))
	eps, err := d.store.Webhooks.ListEndpoints(t.Context(), d.ws)
	if err != nil || len(eps) != 1 {
		t.Fatalf("endpoints after adding one: %v %v", eps, err)
	}
	if got := value(t, tab, "#wh-secret"); got != eps[0].Secret || got == "" {
		t.Errorf("revealed secret %q, want the endpoint's", got)
	}
	checkA11y(t, tab, "webhook-secret")
	screenshot(t, tab, "webhook-secret")

	d.visit(t, tab, "/dashboard/settings/audit", "audit")
	entries, err := d.store.Owners.ListAudit(t.Context(), d.ws, account.MaxAudit)
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, e := range entries {
		if e.Actor != d.owner {
			t.Errorf("audit entry %s by %q, want the owner", e.Action, e.Actor)
		}
		actions = append(actions, e.Action)
	}
	want := []string{account.ActionWebhookSecret, account.ActionWebhookAdded, account.ActionKeyRevoked, account.ActionKeyCreated, account.ActionSignIn}
	if !slices.Equal(actions, want) {
		t.Errorf("audit log %v, want %v (newest first)", actions, want)
	}
	for _, p := range []string{"settings", "emails", "approvals", "held", "campaigns", "contacts", "segments", "suppressions", "automations"} {
		d.visit(t, tab, "/dashboard/"+p, p)
	}
}

// seedMetrics counts three days of the last week in d's workspace: 30
// sent, 28 delivered, 2 bounced (6.67 %), 9 opened, 3 clicked.
func seedMetrics(t *testing.T, d *dash) {
	t.Helper()
	tally := status.Tally{}
	for i, n := range []map[string]int{
		{"sent": 10, "delivered": 10, "opened": 5, "clicked": 2},
		{"sent": 12, "delivered": 11, "bounced": 1, "opened": 3},
		{"sent": 8, "delivered": 7, "bounced": 1, "opened": 1, "clicked": 1},
	} {
		counts := map[string]int{}
		for m, c := range n {
			counts["transactional_live_"+m] = c
		}
		day := time.Now().UTC().AddDate(0, 0, -2*i).Format("2006-01-02")
		tally[status.Counter{Kind: status.DailyMetrics, WorkspaceID: d.ws, Key: day}] = counts
	}
	if err := d.store.Statuses.Count(t.Context(), tally); err != nil {
		t.Fatal(err)
	}
}

// Email HTML with a script is previewed only in a sandboxed frame with
// its own CSP: the script runs neither in the frame nor on the preview's
// own URL.
func TestDashboardPreviewRunsNoScript(t *testing.T) {
	d := startDashboard(t)
	draft := newDraft(t, d.env, d.ws, `<p id="hi">Hello</p><script>document.title = "ran"; top.postMessage("ran", "*")</script>`)
	c, _ := d.signIn(t, d.owner)
	preview := "/dashboard/preview/campaigns/" + draft
	p := d.dashDo(t, c, preview, nil)
	if p.status != http.StatusOK || p.header.Get("Content-Security-Policy") != previewBlocked {
		t.Fatalf("preview: %d, CSP %q", p.status, p.header.Get("Content-Security-Policy"))
	}
	if got := p.header.Get("X-Frame-Options"); got != "SAMEORIGIN" {
		t.Errorf("preview: X-Frame-Options %q, want SAMEORIGIN (framed by the dashboard only)", got)
	}

	tab := newTab(t)
	// The browser signs in as the owner would.
	link := d.requestLink(t, noRedirects(), d.owner)
	run(t, tab, chromedp.Navigate(link), click(css("main button[type=submit]")), chromedp.WaitVisible(css("#waiting")))
	run(t, tab, chromedp.Navigate(d.url+preview), chromedp.WaitVisible(css("#hi")))
	if title := do(t, tab, chromedp.Title()); title == "ran" {
		t.Error("the preview's script ran on its own URL")
	}
	// Framed by a dashboard page as a screen frames it.
	run(t, tab, chromedp.Navigate(d.url+"/dashboard/"), chromedp.WaitVisible(css("#waiting")))
	eval[bool](t, tab, `window.messages = []; addEventListener("message", e => messages.push(String(e.data)));
		const f = document.createElement("iframe"); f.setAttribute("sandbox", ""); f.src = "`+preview+`";
		new Promise(done => { f.onload = () => done(true); document.body.append(f); })`)
	time.Sleep(200 * time.Millisecond) // a script would have posted by now
	if got := eval[[]string](t, tab, `messages`); len(got) != 0 {
		t.Errorf("the framed preview's script ran: %v", got)
	}
	if title := eval[string](t, tab, `document.title`); title == "ran" || !strings.Contains(title, "Overview") {
		t.Errorf("page title %q", title)
	}
}
