package devstack_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/account"
	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
	"github.com/sesame-mail/sesame/internal/oauth"
)

// An MCP client starts from a 401 on the API: the challenge names the
// resource metadata, which names the authorization server, whose
// metadata offers PKCE S256 only and never a deliberate-only scope.
func TestOAuthDiscovery(t *testing.T) {
	e := startDev(t)
	r := e.bad().get("", "/api/v1/emails")
	challenge := r.header.Get("WWW-Authenticate")
	want := `Bearer realm="sesame", resource_metadata="` + e.url + `/.well-known/oauth-protected-resource"`
	if r.status != http.StatusUnauthorized || challenge != want {
		t.Fatalf("401 challenge %q, want %q", challenge, want)
	}
	var res struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
	}
	getJSON(t, e.url+"/.well-known/oauth-protected-resource", &res)
	if res.Resource != e.url || !slices.Equal(res.AuthorizationServers, []string{e.url}) {
		t.Errorf("resource metadata %+v", res)
	}
	var as struct {
		Issuer, AuthorizationEndpoint, TokenEndpoint, RegistrationEndpoint string
		ScopesSupported                                                    []string `json:"scopes_supported"`
		CodeChallengeMethods                                               []string `json:"code_challenge_methods_supported"`
	}
	getJSON(t, e.url+"/.well-known/oauth-authorization-server", &as)
	if as.Issuer != e.url || !slices.Equal(as.CodeChallengeMethods, []string{"S256"}) {
		t.Errorf("server metadata %+v", as)
	}
	for _, s := range []string{"email:send_bulk", "segments:write"} {
		if slices.Contains(as.ScopesSupported, s) {
			t.Errorf("metadata offers %s", s)
		}
	}
	if !slices.Contains(as.ScopesSupported, "email:send") {
		t.Errorf("metadata lacks email:send: %v", as.ScopesSupported)
	}
}

func getJSON(t *testing.T, u string, v any) {
	t.Helper()
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d", u, res.StatusCode)
	}
	if err := json.NewDecoder(res.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}

func TestOAuthRegistrationRedirectURIs(t *testing.T) {
	e := startDev(t)
	cases := map[string]struct {
		uris     []string
		wantCode string // "" accepted
	}{
		"https":               {uris: []string{"https://app.example.com/cb"}},
		"loopback http":       {uris: []string{"http://127.0.0.1:8123/cb", "http://localhost/cb", "http://[::1]:9/cb"}},
		"plain http":          {uris: []string{"http://app.example.com/cb"}, wantCode: "invalid_redirect_uri"},
		"javascript":          {uris: []string{"javascript:alert(1)"}, wantCode: "invalid_redirect_uri"},
		"fragment":            {uris: []string{"https://app.example.com/cb#x"}, wantCode: "invalid_redirect_uri"},
		"relative":            {uris: []string{"/cb"}, wantCode: "invalid_redirect_uri"},
		"none":                {uris: nil, wantCode: "invalid_client_metadata"},
		"one good one bad":    {uris: []string{"https://a.example/cb", "http://evil.example/cb"}, wantCode: "invalid_redirect_uri"},
		"loopback look-alike": {uris: []string{"http://127.0.0.1.evil.example/cb"}, wantCode: "invalid_redirect_uri"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			status, body, _ := e.oauthPost(t, "/oauth/register", nil, map[string]any{"client_name": "App", "redirect_uris": tc.uris})
			if tc.wantCode == "" {
				if status != http.StatusCreated || !strings.HasPrefix(body["client_id"].(string), oauth.ClientPrefix) {
					t.Fatalf("register: %d %v", status, body)
				}
				return
			}
			oauthError(t, status, body, http.StatusBadRequest, tc.wantCode)
		})
	}
}

// The whole flow: the owner narrows the scopes, the token works on the
// API as a key with those scopes does, and nothing more.
func TestOAuthConnectionActsAsAScopedKey(t *testing.T) {
	d := startDashboard(t)
	c, _ := d.signIn(t, d.owner)
	conn := d.connect(t, c, "emails:read domains:read email:send", []string{"emails:read", "domains:read"})
	if conn.scope != "emails:read domains:read" {
		t.Errorf("granted scope %q, want the narrowed emails:read domains:read", conn.scope)
	}
	if r := d.get(bearer(conn.access), "/api/v1/domains"); r.status != http.StatusOK {
		t.Fatalf("GET domains with the token: %d %s", r.status, r.body)
	}
	if r := d.get(bearer(conn.access), "/api/v1/emails"); r.status != http.StatusOK {
		t.Fatalf("GET emails with the token: %d %s", r.status, r.body)
	}
	// The owner took email:send away: refused as a key without it is.
	d.bad().post(conn.access, "/api/v1/send", map[string]any{
		"from": "a@example.com", "to": "b@example.com", "subject": "s", "html": "<p>x</p>",
	}).wantError(t, http.StatusForbidden, "insufficient_scope", "")
	// The grant and the audit entry are there.
	entries, err := (&account.Audit{Store: d.store.Owners}).List(t.Context(), d.ws, 10)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(entries, func(a account.AuditEntry) bool { return a.Action == oauth.ActionGranted && a.Actor == d.owner }) {
		t.Errorf("audit %+v lacks the grant by %s", entries, d.owner)
	}
}

// A token reads its own workspace only: another workspace's email is 404.
func TestOAuthTokenOfAnotherWorkspace(t *testing.T) {
	d := startDashboard(t)
	c, _ := d.signIn(t, d.owner)
	conn := d.connect(t, c, "emails:read", nil)
	otherWS, otherKey := d.workspace(apikey.Live)
	em := d.putEmail(otherWS, nil)
	if r := d.get(bearer(otherKey), "/api/v1/emails/"+em.ID); r.status != http.StatusOK {
		t.Fatalf("the other workspace reads its email: %d", r.status)
	}
	d.get(bearer(conn.access), "/api/v1/emails/"+em.ID).wantError(t, http.StatusNotFound, "not_found", "")
}

func TestOAuthPKCE(t *testing.T) {
	d := startDashboard(t)
	c, _ := d.signIn(t, d.owner)
	clientID := d.register(t, "App", agentRedirect)
	_, challenge := pkce()

	t.Run("plain method refused at consent", func(t *testing.T) {
		q := authQuery(clientID, agentRedirect, "emails:read", challenge)
		q.Set("code_challenge_method", "plain")
		back := redirectQuery(t, d.dashDo(t, c, "/dashboard/connect?"+q.Encode(), nil), agentRedirect)
		if back.Get("error") != "invalid_request" || back.Get("code") != "" {
			t.Errorf("redirect %v, want error invalid_request and no code", back)
		}
	})
	t.Run("no challenge refused at consent", func(t *testing.T) {
		q := authQuery(clientID, agentRedirect, "emails:read", "")
		q.Del("code_challenge_method")
		back := redirectQuery(t, d.dashDo(t, c, "/dashboard/connect?"+q.Encode(), nil), agentRedirect)
		if back.Get("error") != "invalid_request" {
			t.Errorf("redirect %v, want error invalid_request", back)
		}
	})
	for name, verifier := range map[string]string{"missing verifier": "", "wrong verifier": strings.Repeat("a", 43)} {
		t.Run(name, func(t *testing.T) {
			back := d.approve(t, c, authQuery(clientID, agentRedirect, "emails:read", challenge), nil)
			status, body, _ := d.oauthPost(t, "/oauth/token", url.Values{
				"grant_type": {"authorization_code"}, "code": {back.Get("code")}, "client_id": {clientID},
				"redirect_uri": {agentRedirect}, "code_verifier": {verifier},
			}, nil)
			want := "invalid_grant"
			if verifier == "" {
				want = "invalid_request"
			}
			oauthError(t, status, body, http.StatusBadRequest, want)
		})
	}
}

// A redirect URI the client did not register is never redirected to: the
// owner sees an error page, and no code leaves.
func TestOAuthUnregisteredRedirect(t *testing.T) {
	d := startDashboard(t)
	c, _ := d.signIn(t, d.owner)
	clientID := d.register(t, "App", agentRedirect)
	_, challenge := pkce()
	for _, redirect := range []string{"https://evil.example/cb", agentRedirect + "/more", "http://127.0.0.1:33419/callback"} {
		p := d.dashDo(t, c, "/dashboard/connect?"+authQuery(clientID, redirect, "emails:read", challenge).Encode(), nil)
		if p.status != http.StatusBadRequest || p.header.Get("Location") != "" {
			t.Errorf("%s: %d Location %q, want 400 and no redirect", redirect, p.status, p.header.Get("Location"))
		}
	}
	// An unknown client is an error page as well.
	p := d.dashDo(t, c, "/dashboard/connect?"+authQuery("sesame-client-nope", agentRedirect, "", challenge).Encode(), nil)
	if p.status != http.StatusBadRequest || p.header.Get("Location") != "" {
		t.Errorf("unknown client: %d Location %q", p.status, p.header.Get("Location"))
	}
}

// A code works once; its second use also revokes what the first issued.
func TestOAuthCodeReuse(t *testing.T) {
	d := startDashboard(t)
	c, _ := d.signIn(t, d.owner)
	clientID := d.register(t, "App", agentRedirect)
	verifier, challenge := pkce()
	back := d.approve(t, c, authQuery(clientID, agentRedirect, "domains:read", challenge), nil)
	form := url.Values{
		"grant_type": {"authorization_code"}, "code": {back.Get("code")}, "client_id": {clientID},
		"redirect_uri": {agentRedirect}, "code_verifier": {verifier},
	}
	status, tok, _ := d.oauthPost(t, "/oauth/token", form, nil)
	if status != http.StatusOK {
		t.Fatalf("first use: %d %v", status, tok)
	}
	access := tok["access_token"].(string)
	if r := d.get(bearer(access), "/api/v1/domains"); r.status != http.StatusOK {
		t.Fatalf("token after the first use: %d", r.status)
	}
	status, body, _ := d.oauthPost(t, "/oauth/token", form, nil)
	oauthError(t, status, body, http.StatusBadRequest, "invalid_grant")
	d.get(bearer(access), "/api/v1/domains").wantError(t, http.StatusUnauthorized, "unauthorized", "")
}

// Refresh tokens rotate; a replayed one revokes the whole connection.
func TestOAuthRefreshRotationAndReplay(t *testing.T) {
	d := startDashboard(t)
	c, _ := d.signIn(t, d.owner)
	conn := d.connect(t, c, "domains:read", nil)
	refresh := func(token string) (int, map[string]any) {
		status, body, _ := d.oauthPost(t, "/oauth/token", url.Values{
			"grant_type": {"refresh_token"}, "refresh_token": {token}, "client_id": {conn.clientID},
		}, nil)
		return status, body
	}
	status, next := refresh(conn.refresh)
	if status != http.StatusOK || next["refresh_token"] == conn.refresh {
		t.Fatalf("refresh: %d %v", status, next)
	}
	newAccess, newRefresh := next["access_token"].(string), next["refresh_token"].(string)
	d.get(bearer(conn.access), "/api/v1/domains").wantError(t, http.StatusUnauthorized, "unauthorized", "")
	if r := d.get(bearer(newAccess), "/api/v1/domains"); r.status != http.StatusOK {
		t.Fatalf("new access token: %d", r.status)
	}
	// The old refresh token again: someone else holds a copy.
	status, body := refresh(conn.refresh)
	oauthError(t, status, body, http.StatusBadRequest, "invalid_grant")
	d.get(bearer(newAccess), "/api/v1/domains").wantError(t, http.StatusUnauthorized, "unauthorized", "")
	status, body = refresh(newRefresh)
	oauthError(t, status, body, http.StatusBadRequest, "invalid_grant")

	entries, err := (&account.Audit{Store: d.store.Owners}).List(t.Context(), d.ws, 10)
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, a := range entries {
		actions = append(actions, a.Action)
	}
	for _, want := range []string{oauth.ActionGranted, oauth.ActionRefreshed, oauth.ActionReplayed} {
		if !slices.Contains(actions, want) {
			t.Errorf("audit %v lacks %s", actions, want)
		}
	}
}

// An access token stops at its expiry, whatever DynamoDB's TTL has not yet
// deleted.
func TestOAuthExpiredToken(t *testing.T) {
	clock := dynamotest.NewClock(time.Now())
	e := startDevAt(t, clock)
	address := "owner-" + uuid.NewString()[:8] + "@example.com"
	d := &dash{env: e, ws: e.ownedWorkspace(t, address), owner: address}
	c, _ := d.signIn(t, d.owner)
	conn := d.connect(t, c, "domains:read", nil)
	if r := d.get(bearer(conn.access), "/api/v1/domains"); r.status != http.StatusOK {
		t.Fatalf("fresh token: %d", r.status)
	}
	clock.Set(time.Now().Add(oauth.AccessTTL + time.Minute))
	d.get(bearer(conn.access), "/api/v1/domains").wantError(t, http.StatusUnauthorized, "unauthorized", "")
}

// The owner's connection list shows the client and revokes it at once.
func TestOAuthRevokeInDashboard(t *testing.T) {
	d := startDashboard(t)
	c, csrf := d.signIn(t, d.owner)
	conn := d.connect(t, c, "domains:read", nil)
	p := d.dashDo(t, c, "/dashboard/settings/connections", nil)
	if p.status != http.StatusOK || !strings.Contains(p.body, "Test assistant") || !strings.Contains(p.body, "domains:read") {
		t.Fatalf("connections: %d %s", p.status, p.body)
	}
	grants, err := (&oauth.Service{Store: d.store.OAuth}).Grants(t.Context(), d.ws)
	if err != nil || len(grants) != 1 {
		t.Fatalf("grants %v, %v", grants, err)
	}
	p = d.dashDo(t, c, "/dashboard/settings/connections/"+grants[0].ID+"/revoke", url.Values{"csrf": {csrf}})
	if p.status != http.StatusSeeOther {
		t.Fatalf("revoke: %d %s", p.status, p.body)
	}
	d.get(bearer(conn.access), "/api/v1/domains").wantError(t, http.StatusUnauthorized, "unauthorized", "")
	status, body, _ := d.oauthPost(t, "/oauth/token", url.Values{
		"grant_type": {"refresh_token"}, "refresh_token": {conn.refresh}, "client_id": {conn.clientID},
	}, nil)
	oauthError(t, status, body, http.StatusBadRequest, "invalid_grant")
	if p := d.dashDo(t, c, "/dashboard/settings/connections", nil); !strings.Contains(p.body, "revoked") {
		t.Errorf("the list does not show the revocation: %s", p.body)
	}
	// Another workspace's owner cannot revoke it (404), nor see it.
	other := otherOwner(t, d.env)
	oc, ocsrf := d.signIn(t, other.owner)
	if p := d.dashDo(t, oc, "/dashboard/settings/connections/"+grants[0].ID+"/revoke", url.Values{"csrf": {ocsrf}}); p.status != http.StatusNotFound {
		t.Errorf("foreign revoke: %d", p.status)
	}
}

// otherOwner is another owner and workspace on e.
func otherOwner(t *testing.T, e *env) *dash {
	t.Helper()
	address := "owner-" + uuid.NewString()[:8] + "@example.com"
	return &dash{env: e, ws: e.ownedWorkspace(t, address), owner: address}
}

// The approval is a form of the owner's own dashboard: without its CSRF
// token, or from another origin, no code is issued.
func TestOAuthConsentCSRF(t *testing.T) {
	d := startDashboard(t)
	c, _ := d.signIn(t, d.owner)
	clientID := d.register(t, "App", agentRedirect)
	_, challenge := pkce()
	form := consentForm(t, d.dashDo(t, c, "/dashboard/connect?"+authQuery(clientID, agentRedirect, "emails:read", challenge).Encode(), nil))
	form.Set("workspace", d.ws)
	form.Set("decision", "approve")

	forged := url.Values{}
	for k, v := range form {
		forged[k] = v
	}
	forged.Del("csrf")
	if p := d.dashDo(t, c, "/dashboard/connect", forged); p.status != http.StatusForbidden || p.header.Get("Location") != "" {
		t.Errorf("no CSRF token: %d Location %q", p.status, p.header.Get("Location"))
	}
	if p := d.dashDo(t, c, "/dashboard/connect", form, "Origin", "https://evil.example", "Sec-Fetch-Site", "cross-site"); p.status != http.StatusForbidden {
		t.Errorf("cross-site: %d", p.status)
	}
	// Signed out: no code either.
	if p := d.dashDo(t, noRedirects(), "/dashboard/connect", form); p.status == http.StatusSeeOther && strings.Contains(p.header.Get("Location"), "code=") {
		t.Errorf("signed out: a code left: %s", p.header.Get("Location"))
	}
	// Another workspace than the owner's: not found, no code.
	other := otherOwner(t, d.env)
	form.Set("workspace", other.ws)
	if p := d.dashDo(t, c, "/dashboard/connect", form); p.status != http.StatusNotFound {
		t.Errorf("foreign workspace: %d %s", p.status, p.header.Get("Location"))
	}
	// Refused: the client hears access_denied.
	form.Set("workspace", d.ws)
	form.Set("decision", "refuse")
	back := redirectQuery(t, d.dashDo(t, c, "/dashboard/connect", form), agentRedirect)
	if back.Get("error") != "access_denied" || back.Get("code") != "" {
		t.Errorf("refusal: %v", back)
	}
}

// email:send_bulk and segments:write cannot be had by any route of the
// flow: registration, the consent request, a forged approval, the token
// endpoint, a refresh; and a connection's token is refused on their routes.
func TestOAuthNeverGrantsDeliberateScopes(t *testing.T) {
	d := startDashboard(t)
	c, _ := d.signIn(t, d.owner)
	for _, scope := range []string{"email:send_bulk", "segments:write"} {
		t.Run(scope, func(t *testing.T) {
			status, body, _ := d.oauthPost(t, "/oauth/register", nil, map[string]any{
				"client_name": "App", "redirect_uris": []string{agentRedirect}, "scope": "emails:read " + scope,
			})
			oauthError(t, status, body, http.StatusBadRequest, "invalid_client_metadata")

			clientID := d.register(t, "App", agentRedirect)
			verifier, challenge := pkce()
			back := redirectQuery(t, d.dashDo(t, c, "/dashboard/connect?"+authQuery(clientID, agentRedirect, "emails:read "+scope, challenge).Encode(), nil), agentRedirect)
			if back.Get("error") != "invalid_scope" || back.Get("code") != "" {
				t.Errorf("consent request: %v, want error invalid_scope", back)
			}

			// A forged approval adding the scope to the form.
			q := authQuery(clientID, agentRedirect, "emails:read", challenge)
			form := consentForm(t, d.dashDo(t, c, "/dashboard/connect?"+q.Encode(), nil))
			form.Set("workspace", d.ws)
			form.Set("decision", "approve")
			form.Add("grant", scope)
			if p := d.dashDo(t, c, "/dashboard/connect", form); p.status != http.StatusBadRequest || p.header.Get("Location") != "" {
				t.Errorf("forged approval: %d Location %q", p.status, p.header.Get("Location"))
			}

			// The token endpoint, asked for it with a good code.
			back = d.approve(t, c, q, nil)
			status, body, _ = d.oauthPost(t, "/oauth/token", url.Values{
				"grant_type": {"authorization_code"}, "code": {back.Get("code")}, "client_id": {clientID},
				"redirect_uri": {agentRedirect}, "code_verifier": {verifier}, "scope": {scope},
			}, nil)
			oauthError(t, status, body, http.StatusBadRequest, "invalid_scope")

			// A refresh asking for it.
			conn := d.connect(t, c, "", nil)
			if strings.Contains(conn.scope, scope) {
				t.Fatalf("a connection asking for everything got %s: %s", scope, conn.scope)
			}
			status, body, _ = d.oauthPost(t, "/oauth/token", url.Values{
				"grant_type": {"refresh_token"}, "refresh_token": {conn.refresh}, "client_id": {conn.clientID}, "scope": {scope},
			}, nil)
			oauthError(t, status, body, http.StatusBadRequest, "invalid_scope")
		})
	}
	conn := d.connect(t, c, "", nil)
	d.bad().post(conn.access, "/api/v1/send/bulk", map[string]any{"segment_id": "x"}).wantError(t, http.StatusForbidden, "insufficient_scope", "")
	d.bad().post(conn.access, "/api/v1/segments", map[string]any{"name": "x"}).wantError(t, http.StatusForbidden, "insufficient_scope", "")
}
