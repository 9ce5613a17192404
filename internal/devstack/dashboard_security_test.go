package devstack_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/account"
	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/campaign"
	"github.com/sesame-mail/sesame/internal/signin"
	"github.com/sesame-mail/sesame/internal/webhook"
)

// Without a session a page redirects to sign-in and a form answers 401;
// a forged cookie is no session.
func TestDashboardNeedsASession(t *testing.T) {
	d := startDashboard(t)
	c := noRedirects()
	for _, path := range []string{"/dashboard/", "/dashboard/settings/keys", "/dashboard/settings/webhooks", "/dashboard/settings/audit"} {
		if p := d.dashDo(t, c, path, nil); p.status != http.StatusSeeOther || p.header.Get("Location") != "/dashboard/sign-in" {
			t.Errorf("GET %s without a session: %d to %q, want 303 to /dashboard/sign-in", path, p.status, p.header.Get("Location"))
		}
	}
	if p := d.dashDo(t, c, "/dashboard/settings/keys", url.Values{"name": {"x"}}); p.status != http.StatusUnauthorized {
		t.Errorf("POST a form without a session: %d, want 401", p.status)
	}
	forged := signin.Signer{Secret: []byte("another secret")}.Cookie(signin.NewSecret())
	if p := d.dashDo(t, c, "/dashboard/", nil, "Cookie", "sesame_session="+forged); p.status != http.StatusSeeOther {
		t.Errorf("a cookie signed with another secret: %d, want 303", p.status)
	}
	keys, _ := d.store.Keys.ListKeys(t.Context(), d.ws)
	if len(keys) != 1 {
		t.Errorf("the workspace has %d keys, want only its first", len(keys))
	}
}

// A link works once, within 15 minutes, and only as one we sent: a
// reused, expired or forged link is an error page saying to ask again. GET
// only shows the confirmation (mail scanners fetch links).
func TestDashboardSignInLinks(t *testing.T) {
	d := startDashboard(t)
	c := noRedirects()
	link := d.requestLink(t, c, d.owner)
	path := strings.TrimPrefix(link, d.url)
	if p := d.dashDo(t, c, path, nil); p.status != http.StatusOK || !strings.Contains(p.body, "<button type=\"submit\">Sign in</button>") {
		t.Fatalf("GET link: %d %s", p.status, p.body)
	}
	// The GET consumed nothing: the POST still signs in.
	p := d.dashDo(t, c, path, url.Values{})
	if p.status != http.StatusSeeOther || p.header.Get("Location") != "/dashboard/" {
		t.Fatalf("POST link: %d to %q", p.status, p.header.Get("Location"))
	}
	cookie := p.header.Get("Set-Cookie")
	for _, attr := range []string{"sesame_session=", "Path=/dashboard", "HttpOnly", "SameSite=Strict"} {
		if !strings.Contains(cookie, attr) {
			t.Errorf("session cookie %q lacks %s", cookie, attr)
		}
	}
	if strings.Contains(cookie, "Secure") {
		t.Errorf("session cookie %q is Secure on the local http stack", cookie)
	}
	if p := d.dashDo(t, c, "/dashboard/", nil); p.status != http.StatusOK || !strings.Contains(p.body, d.owner) {
		t.Errorf("overview after sign-in: %d", p.status)
	}

	again := noRedirects()
	if p := d.dashDo(t, again, path, url.Values{}); p.status != http.StatusBadRequest || !strings.Contains(p.body, "Request a new one") {
		t.Errorf("reused link: %d %s", p.status, p.body)
	}
	if p := d.dashDo(t, again, "/dashboard/sign-in/"+signin.NewSecret(), url.Values{}); p.status != http.StatusBadRequest {
		t.Errorf("forged link: %d", p.status)
	}
	expired := signin.NewSecret()
	if err := d.store.SignIns.PutLink(t.Context(), signin.Hash(expired), signin.Link{Address: d.owner, ExpiresAt: time.Now().Add(-time.Second)}); err != nil {
		t.Fatal(err)
	}
	if p := d.dashDo(t, again, "/dashboard/sign-in/"+expired, url.Values{}); p.status != http.StatusBadRequest {
		t.Errorf("expired link: %d", p.status)
	}
	if p := d.dashDo(t, again, "/dashboard/", nil); p.status != http.StatusSeeOther {
		t.Errorf("no session came of the bad links: %d", p.status)
	}
	// Stored only as hashes: no item holds a link's token.
	if _, err := d.store.SignIns.ConsumeLink(t.Context(), strings.TrimPrefix(path, "/dashboard/sign-in/"), time.Now()); err == nil {
		t.Error("a link is stored under its token, not its hash")
	}
}

// An unknown address gets the very page an owner gets, and no email; the
// address and the IP are rate limited, counted before any lookup.
func TestDashboardSignInAnswersAlike(t *testing.T) {
	d := startDashboard(t)
	c := noRedirects()
	stranger := "stranger-" + uuid.NewString()[:8] + "@example.com"
	known := d.dashDo(t, c, "/dashboard/sign-in", url.Values{"email": {d.owner}})
	unknown := d.dashDo(t, c, "/dashboard/sign-in", url.Values{"email": {stranger}})
	if known.status != http.StatusOK || unknown.status != known.status || unknown.body != known.body {
		t.Errorf("an unknown address is answered otherwise: %d vs %d", unknown.status, known.status)
	}
	if n := len(signInLinks(t, stranger)); n != 0 {
		t.Errorf("%d emails went to an unknown address", n)
	}
	for range signin.PerAddress - 1 {
		d.dashDo(t, c, "/dashboard/sign-in", url.Values{"email": {d.owner}})
	}
	if p := d.dashDo(t, c, "/dashboard/sign-in", url.Values{"email": {d.owner}}); p.status != http.StatusTooManyRequests {
		t.Errorf("request %d for one address: %d, want 429", signin.PerAddress+1, p.status)
	}
	if n := len(signInLinks(t, d.owner)); n != signin.PerAddress {
		t.Errorf("%d links sent to the owner, want %d", n, signin.PerAddress)
	}
	// The IP: 20 requests in all, whatever the addresses.
	for i := signin.PerAddress + 2; i <= signin.PerIP; i++ {
		d.dashDo(t, c, "/dashboard/sign-in", url.Values{"email": {"other-" + uuid.NewString()[:8] + "@example.com"}})
	}
	if p := d.dashDo(t, c, "/dashboard/sign-in", url.Values{"email": {"late@example.com"}}); p.status != http.StatusTooManyRequests {
		t.Errorf("request %d from one IP: %d, want 429", signin.PerIP+1, p.status)
	}
}

// A POST without the session's CSRF token, or from another site, is
// refused with 403 and changes nothing; every page has the security
// headers.
func TestDashboardCSRFAndHeaders(t *testing.T) {
	d := startDashboard(t)
	c, csrf := d.signIn(t, d.owner)
	create := url.Values{"name": {"k"}, "env": {"live"}, "preset": {"full"}}
	cases := map[string]struct {
		form   url.Values
		header []string
	}{
		"no token":          {form: create},
		"another's token":   {form: with(create, "csrf", signin.Signer{Secret: []byte("test-dashboard-secret")}.CSRF(signin.NewSecret()))},
		"other origin":      {form: with(create, "csrf", csrf), header: []string{"Origin", "https://evil.example"}},
		"cross-site":        {form: with(create, "csrf", csrf), header: []string{"Sec-Fetch-Site", "cross-site"}},
		"sign-out no token": {form: url.Values{}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			path := "/dashboard/settings/keys"
			if strings.HasPrefix(name, "sign-out") {
				path = "/dashboard/sign-out"
			}
			if p := d.dashDo(t, c, path, tc.form, tc.header...); p.status != http.StatusForbidden {
				t.Errorf("%d, want 403", p.status)
			}
		})
	}
	if keys, _ := d.store.Keys.ListKeys(t.Context(), d.ws); len(keys) != 1 {
		t.Errorf("refused forms created keys: %d", len(keys))
	}
	if p := d.dashDo(t, c, "/dashboard/settings/keys", with(create, "csrf", csrf), "Origin", d.url, "Sec-Fetch-Site", "same-origin"); p.status != http.StatusOK {
		t.Errorf("the same form with its token: %d", p.status)
	}

	p := d.dashDo(t, c, "/dashboard/settings/keys", nil)
	want := map[string]string{
		"Content-Security-Policy": "default-src 'self'; frame-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'; object-src 'none'",
		"X-Frame-Options":         "DENY", "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer", "Cache-Control": "no-store",
	}
	for h, v := range want {
		if got := p.header.Get(h); got != v {
			t.Errorf("%s = %q, want %q", h, got, v)
		}
	}

	// Sign-out revokes the session on the server: its cookie is dead.
	cookie := c.Jar.Cookies(mustURL(t, d.url+"/dashboard/"))
	if p := d.dashDo(t, c, "/dashboard/sign-out", url.Values{"csrf": {csrf}}); p.status != http.StatusSeeOther {
		t.Fatalf("sign-out: %d", p.status)
	}
	if p := d.dashDo(t, noRedirects(), "/dashboard/", nil, "Cookie", "sesame_session="+cookie[0].Value); p.status != http.StatusSeeOther {
		t.Errorf("the signed-out cookie still works: %d", p.status)
	}
}

// A session idle for 12 hours has ended, whatever its TTL says.
func TestDashboardSessionIdleExpiry(t *testing.T) {
	d := startDashboard(t)
	id := signin.NewSecret()
	idle := time.Now().Add(-signin.SessionIdle - time.Minute)
	err := d.store.SignIns.PutSession(t.Context(), signin.Session{Hash: signin.Hash(id), Address: d.owner, WorkspaceID: d.ws, CreatedAt: idle, LastSeen: idle})
	if err != nil {
		t.Fatal(err)
	}
	cookie := "sesame_session=" + signin.Signer{Secret: []byte("test-dashboard-secret")}.Cookie(id)
	if p := d.dashDo(t, noRedirects(), "/dashboard/", nil, "Cookie", cookie); p.status != http.StatusSeeOther {
		t.Errorf("an idle session: %d, want 303 to sign-in", p.status)
	}
}

// An owner removed with `sesame owners remove` is signed out at their next
// request: the session's cookie leads to sign-in again.
func TestDashboardRemovedOwnerIsSignedOut(t *testing.T) {
	d := startDashboard(t)
	c, _ := d.signIn(t, d.owner)
	if p := d.dashDo(t, c, "/dashboard/", nil); p.status != http.StatusOK {
		t.Fatalf("signed in: %d", p.status)
	}
	if err := (&account.Owners{Store: d.store.Owners}).Remove(t.Context(), d.ws, d.owner); err != nil {
		t.Fatal(err)
	}
	p := d.dashDo(t, c, "/dashboard/", nil)
	if p.status != http.StatusSeeOther || !strings.HasSuffix(p.header.Get("Location"), "/dashboard/sign-in") {
		t.Errorf("after the owner was removed: %d to %q, want 303 to sign-in", p.status, p.header.Get("Location"))
	}
	if again := d.dashDo(t, c, "/dashboard/", nil); again.status != http.StatusSeeOther {
		t.Errorf("the session still works: %d", again.status)
	}
}

// An owner of workspace A reaches no id of workspace B: 404, nothing done.
func TestDashboardOtherWorkspaceIsNotFound(t *testing.T) {
	d := startDashboard(t)
	ctx := t.Context()
	other, _ := d.workspace(apikey.Live)
	_, key, err := d.store.Keys.CreateKey(ctx, other, apikey.Live, "b", apikey.FullAccess)
	if err != nil {
		t.Fatal(err)
	}
	ep, err := webhook.NewEndpoint(other, "https://example.com/b", nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.store.Webhooks.CreateEndpoint(ctx, ep); err != nil {
		t.Fatal(err)
	}
	draft := newDraft(t, d.env, other, "<p>B</p>")
	c, csrf := d.signIn(t, d.owner)
	for _, tc := range []struct {
		path string
		form url.Values
	}{
		{"/dashboard/settings/webhooks/" + ep.ID, nil},
		{"/dashboard/settings/webhooks/" + ep.ID + "/secret", url.Values{"csrf": {csrf}}},
		{"/dashboard/settings/webhooks/" + ep.ID + "/disable", url.Values{"csrf": {csrf}}},
		{"/dashboard/settings/keys/" + key.ID + "/revoke", url.Values{"csrf": {csrf}}},
		{"/dashboard/settings/keys/" + key.ID + "/regenerate", url.Values{"csrf": {csrf}}},
		{"/dashboard/preview/campaigns/" + draft, nil},
		{"/dashboard/no-such-page", nil},
	} {
		if p := d.dashDo(t, c, tc.path, tc.form); p.status != http.StatusNotFound || strings.Contains(p.body, ep.Secret) {
			t.Errorf("%s: %d, want 404", tc.path, p.status)
		}
	}
	if p := d.dashDo(t, c, "/dashboard/workspaces", url.Values{"csrf": {csrf}, "workspace": {other}}); p.status != http.StatusNotFound {
		t.Errorf("picking another's workspace: %d, want 404", p.status)
	}
	keys, _ := d.store.Keys.ListKeys(ctx, other)
	if len(keys) != 2 || keys[0].RevokedAt != nil || keys[1].RevokedAt != nil {
		t.Errorf("workspace B's keys changed: %+v", keys)
	}
	if got, _ := d.store.Webhooks.GetEndpoint(ctx, other, ep.ID); !got.Enabled {
		t.Error("workspace B's endpoint was disabled")
	}
}

// newDraft stores a pending campaign of ws with html, for previews.
func newDraft(t *testing.T, e *env, ws, html string) string {
	t.Helper()
	id := uuid.Must(uuid.NewV7()).String()
	c := campaign.Campaign{ID: id, WorkspaceID: ws, Subject: "Draft", HTML: html, Status: campaign.StatusPendingApproval, CreatedAt: time.Now().UTC()}
	c.ContentHash = campaign.ContentHash(c.Subject, c.HTML, c.Sender)
	if _, err := e.store.Campaigns.CreateCampaign(t.Context(), c, nil, nil); err != nil {
		t.Fatal(err)
	}
	return id
}

func with(v url.Values, name, value string) url.Values {
	out := url.Values{}
	for k, vs := range v {
		out[k] = vs
	}
	out.Set(name, value)
	return out
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// A form over its size limit is 413 with a page that says so, not a
// refusal as expired (its CSRF token was past the cut); nothing changes.
func TestDashboardFormTooLarge(t *testing.T) {
	d := startDashboard(t)
	c, csrf := d.signIn(t, d.owner)
	form := url.Values{"csrf": {csrf}, "name": {strings.Repeat("k", 80<<10)}, "env": {"live"}, "preset": {"full"}}
	p := d.dashDo(t, c, "/dashboard/settings/keys", form)
	if p.status != http.StatusRequestEntityTooLarge || !strings.Contains(p.body, "larger than the dashboard takes") || strings.Contains(p.body, "expired") {
		t.Errorf("%d %.300s, want 413 saying the form is too large", p.status, p.body)
	}
	if keys, _ := d.store.Keys.ListKeys(t.Context(), d.ws); len(keys) != 1 {
		t.Errorf("a refused form created keys: %d", len(keys))
	}
}
