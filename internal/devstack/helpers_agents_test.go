package devstack_test

// The OAuth harness: a client registered on the dev server, an owner who
// approves it on the consent screen over plain HTTP, and the token
// endpoint's answers.

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// agentRedirect is the loopback redirect URI a desktop client registers.
const agentRedirect = "http://127.0.0.1:33418/callback"

// oauthPost posts form (or JSON when form is nil) to path without
// redirects or cookies, and returns the status and JSON body.
func (e *env) oauthPost(t *testing.T, path string, form url.Values, jsonBody any) (int, map[string]any, http.Header) {
	t.Helper()
	var body io.Reader
	ctype := "application/x-www-form-urlencoded"
	if form != nil {
		body = strings.NewReader(form.Encode())
	} else {
		b, err := json.Marshal(jsonBody)
		if err != nil {
			t.Fatal(err)
		}
		body, ctype = strings.NewReader(string(b)), "application/json"
	}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, e.url+path, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", ctype)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
		t.Fatalf("POST %s: %d, body not JSON: %v", path, res.StatusCode, err)
	}
	return res.StatusCode, out, res.Header
}

// register registers a client with the redirect URIs and returns its id.
func (e *env) register(t *testing.T, name string, redirects ...string) string {
	t.Helper()
	status, body, _ := e.oauthPost(t, "/oauth/register", nil, map[string]any{
		"client_name": name, "redirect_uris": redirects, "token_endpoint_auth_method": "none",
	})
	if status != http.StatusCreated {
		t.Fatalf("register: %d %v", status, body)
	}
	return body["client_id"].(string)
}

// pkce is a verifier and its S256 challenge.
func pkce() (verifier, challenge string) {
	b := make([]byte, 32)
	rand.Read(b)
	verifier = base64.RawURLEncoding.EncodeToString(b)
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}

// authQuery is an authorization request's query.
func authQuery(clientID, redirect, scope, challenge string) url.Values {
	return url.Values{
		"client_id": {clientID}, "redirect_uri": {redirect}, "response_type": {"code"}, "scope": {scope},
		"state": {"st-1"}, "code_challenge": {challenge}, "code_challenge_method": {"S256"},
	}
}

// consentForm is the consent screen's form as shown: its hidden fields
// and CSRF token, the scopes ticked.
var (
	hiddenRE   = regexp.MustCompile(`<input type="hidden" name="([a-z_]+)" value="([^"]*)">`)
	grantBoxRE = regexp.MustCompile(`name="grant" value="([^"]+)" checked`)
)

func consentForm(t *testing.T, p page) url.Values {
	t.Helper()
	if p.status != http.StatusOK {
		t.Fatalf("consent screen: %d %s", p.status, p.body)
	}
	form := url.Values{}
	for _, m := range hiddenRE.FindAllStringSubmatch(p.body, -1) {
		form.Set(m[1], html.UnescapeString(m[2]))
	}
	for _, m := range grantBoxRE.FindAllStringSubmatch(p.body, -1) {
		form.Add("grant", m[1])
	}
	return form
}

// approve runs the consent screen as the signed-in owner c for ws, keeping
// the scopes keep (all shown when nil), and returns the redirect's query.
func (d *dash) approve(t *testing.T, c *http.Client, q url.Values, keep []string) url.Values {
	t.Helper()
	form := consentForm(t, d.dashDo(t, c, "/dashboard/connect?"+q.Encode(), nil))
	if keep != nil {
		form["grant"] = keep
	}
	form.Set("workspace", d.ws)
	form.Set("decision", "approve")
	return redirectQuery(t, d.dashDo(t, c, "/dashboard/connect", form), q.Get("redirect_uri"))
}

// redirectQuery is the query of p's redirect to redirect.
func redirectQuery(t *testing.T, p page, redirect string) url.Values {
	t.Helper()
	loc := p.header.Get("Location")
	if p.status != http.StatusSeeOther || !strings.HasPrefix(loc, redirect+"?") {
		t.Fatalf("want a redirect to %s, got %d Location %q: %s", redirect, p.status, loc, p.body)
	}
	u, err := url.Parse(loc)
	if err != nil {
		t.Fatal(err)
	}
	return u.Query()
}

// connection is a client connected to d's workspace: its id, tokens and
// the PKCE verifier used.
type connection struct {
	clientID, access, refresh, scope string
}

// connect registers a client and runs the whole flow with scope, the
// owner keeping keep (all when nil).
func (d *dash) connect(t *testing.T, c *http.Client, scope string, keep []string) connection {
	t.Helper()
	clientID := d.register(t, "Test assistant", agentRedirect)
	verifier, challenge := pkce()
	back := d.approve(t, c, authQuery(clientID, agentRedirect, scope, challenge), keep)
	if back.Get("state") != "st-1" || back.Get("iss") != d.url {
		t.Fatalf("redirect query %v: want state st-1 and iss %s", back, d.url)
	}
	status, tok, _ := d.oauthPost(t, "/oauth/token", url.Values{
		"grant_type": {"authorization_code"}, "code": {back.Get("code")}, "client_id": {clientID},
		"redirect_uri": {agentRedirect}, "code_verifier": {verifier},
	}, nil)
	if status != http.StatusOK || tok["token_type"] != "Bearer" {
		t.Fatalf("token: %d %v", status, tok)
	}
	return connection{clientID: clientID, access: tok["access_token"].(string), refresh: tok["refresh_token"].(string), scope: tok["scope"].(string)}
}

// oauthError requires an OAuth error answer with status and code.
func oauthError(t *testing.T, status int, body map[string]any, wantStatus int, wantCode string) {
	t.Helper()
	if status != wantStatus || body["error"] != wantCode {
		t.Errorf("got %d %v, want %d error %s", status, body, wantStatus, wantCode)
	}
}
