package devstack_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// The consent in Chromium, as an owner lives it: an assistant opens the
// consent screen while the owner is signed out; they sign in by the
// emailed link and land back on it; it names the application, its
// redirect URI and the scopes; they untick one and approve; the browser
// takes the code to the application's loopback redirect URI (the page's
// CSP lets the form lead there), whose code buys a token that works on
// the API with the scopes kept.
func TestOAuthConsentInBrowser(t *testing.T) {
	d := startDashboard(t)
	codes := make(chan url.Values, 1)
	callback := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case codes <- r.URL.Query():
		default:
		}
		fmt.Fprint(w, `<!doctype html><title>Connected</title><p id="done">You may close this window.</p>`)
	}))
	t.Cleanup(callback.Close)
	redirect := callback.URL + "/callback"
	clientID := d.register(t, "Desk Assistant", redirect)
	verifier, challenge := pkce()
	q := authQuery(clientID, redirect, "emails:read domains:read", challenge)

	tab := newTab(t)
	run(t, tab, chromedp.Navigate(d.url+"/dashboard/connect?"+q.Encode()), chromedp.WaitVisible(css("#email")))
	run(t, tab, chromedp.SendKeys(css("#email"), d.owner), click(css("main button[type=submit]")),
		chromedp.WaitVisible(css("main [role=status]")))
	links := signInLinks(t, d.owner)
	if len(links) != 1 {
		t.Fatalf("the SES emulator has %d links for the owner, want 1", len(links))
	}
	run(t, tab, chromedp.Navigate(links[0]), chromedp.WaitVisible(css("main button[type=submit]")))
	run(t, tab, click(css("main button[type=submit]")), chromedp.WaitVisible(css("#approve")))
	checkA11y(t, tab, "connect")
	screenshot(t, tab, "connect")
	if got := eval[string](t, tab, `document.querySelector("#client-name").innerText`); got != "Desk Assistant" {
		t.Errorf("consent names %q, want the client's name", got)
	}
	if got := eval[string](t, tab, `document.querySelector("#redirect-uri").innerText`); got != redirect {
		t.Errorf("consent shows redirect %q, want %q", got, redirect)
	}
	page := eval[string](t, tab, `document.querySelector("main").innerText`)
	for _, s := range []string{"emails:read", "domains:read"} {
		if !strings.Contains(page, s) {
			t.Errorf("consent does not show %s: %s", s, page)
		}
	}
	// Untick domains:read, approve.
	box := css(`input[name=grant][value="domains:read"]`)
	run(t, tab, chromedp.Steps(chromedp.Focus(box), chromedp.KeyEvent(" "))) // Space ticks a focused box
	if eval[bool](t, tab, `document.querySelector('input[name=grant][value="domains:read"]').checked`) {
		t.Fatal("domains:read is still ticked")
	}
	run(t, tab, click(css("#approve")), chromedp.WaitVisible(css("#done")))
	var back url.Values
	select {
	case back = <-codes:
	default:
		t.Fatal("the application's redirect URI got nothing")
	}
	if back.Get("state") != "st-1" || back.Get("code") == "" {
		t.Fatalf("redirect query %v", back)
	}
	status, tok, _ := d.oauthPost(t, "/oauth/token", url.Values{
		"grant_type": {"authorization_code"}, "code": {back.Get("code")}, "client_id": {clientID},
		"redirect_uri": {redirect}, "code_verifier": {verifier},
	}, nil)
	if status != http.StatusOK || tok["scope"] != "emails:read" {
		t.Fatalf("token: %d %v", status, tok)
	}
	access := tok["access_token"].(string)
	if r := d.get(bearer(access), "/api/v1/emails"); r.status != http.StatusOK {
		t.Errorf("emails with the token: %d", r.status)
	}
	d.get(bearer(access), "/api/v1/domains").wantError(t, http.StatusForbidden, "insufficient_scope", "")

	d.visit(t, tab, "/dashboard/settings/connections", "connections")
	if got := eval[string](t, tab, `document.querySelector("main table").innerText`); !strings.Contains(got, "Desk Assistant") || !strings.Contains(got, d.owner) {
		t.Errorf("connections list: %s", got)
	}
}
