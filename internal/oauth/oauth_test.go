package oauth_test

import (
	"crypto/sha256"
	"encoding/base64"
	"slices"
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/oauth"
)

func TestCheckRedirectURI(t *testing.T) {
	cases := map[string]bool{
		"https://app.example.com/cb":       true,
		"https://app.example.com/cb?x=1":   true,
		"http://127.0.0.1:8080/cb":         true,
		"http://127.9.9.9/cb":              true,
		"http://localhost:3000/cb":         true,
		"http://[::1]:3000/cb":             true,
		"http://app.example.com/cb":        false,
		"http://127.0.0.1.nip.io/cb":       false,
		"http://localhost.evil.example/cb": false,
		"https://app.example.com/cb#frag":  false,
		"https://user:pw@app.example/cb":   false,
		"javascript:alert(1)":              false,
		"myapp:/callback":                  false,
		"/relative":                        false,
		"":                                 false,
	}
	for uri, ok := range cases {
		err := oauth.CheckRedirectURI(uri)
		if (err == nil) != ok {
			t.Errorf("CheckRedirectURI(%q) = %v, want ok %v", uri, err, ok)
		}
		if err != nil && fail.KindOf(err) != fail.KindInvalid {
			t.Errorf("CheckRedirectURI(%q): kind %v, want invalid", uri, fail.KindOf(err))
		}
	}
}

func challengeOf(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

func TestVerifyPKCE(t *testing.T) {
	// RFC 7636 Appendix B's example.
	const rfcVerifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
	const rfcChallenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
	long := strings.Repeat("a", 128)
	cases := map[string]struct {
		verifier, challenge string
		want                bool
	}{
		"RFC 7636 example":    {rfcVerifier, rfcChallenge, true},
		"128 characters":      {long, challengeOf(long), true},
		"wrong verifier":      {strings.Repeat("b", 43), rfcChallenge, false},
		"42 characters":       {rfcVerifier[:42], challengeOf(rfcVerifier[:42]), false},
		"129 characters":      {long + "a", challengeOf(long + "a"), false},
		"reserved character":  {rfcVerifier[:42] + "+", challengeOf(rfcVerifier[:42] + "+"), false},
		"plain (challenge=v)": {rfcVerifier, rfcVerifier, false},
		"empty":               {"", "", false},
	}
	for name, tc := range cases {
		if got := oauth.VerifyPKCE(tc.verifier, tc.challenge); got != tc.want {
			t.Errorf("%s: VerifyPKCE = %v, want %v", name, got, tc.want)
		}
	}
}

func TestCheckChallenge(t *testing.T) {
	good := challengeOf(strings.Repeat("v", 43))
	cases := map[string]struct {
		method, challenge string
		wantParam         string // "" accepted
	}{
		"S256":           {"S256", good, ""},
		"plain":          {"plain", good, "code_challenge_method"},
		"no method":      {"", good, "code_challenge_method"},
		"no challenge":   {"S256", "", "code_challenge"},
		"short":          {"S256", good[:42], "code_challenge"},
		"not base64url":  {"S256", good[:42] + "+", "code_challenge"},
		"lowercase s256": {"s256", good, "code_challenge_method"},
	}
	for name, tc := range cases {
		err := oauth.CheckChallenge(tc.method, tc.challenge)
		e, _ := fail.As(err)
		switch {
		case tc.wantParam == "" && err != nil:
			t.Errorf("%s: %v", name, err)
		case tc.wantParam != "" && (e == nil || e.Param != tc.wantParam):
			t.Errorf("%s: %v, want an error on %s", name, err, tc.wantParam)
		}
	}
}

func TestParseScope(t *testing.T) {
	cases := map[string]struct {
		raw      string
		want     []apikey.Scope
		wantKind fail.Kind
	}{
		"empty asks for all grantable": {raw: "", want: apikey.FullAccess},
		"two":                          {raw: "emails:read  email:send", want: []apikey.Scope{apikey.EmailsRead, apikey.EmailSend}},
		"repeated":                     {raw: "emails:read emails:read", want: []apikey.Scope{apikey.EmailsRead}},
		"send_bulk":                    {raw: "emails:read email:send_bulk", wantKind: fail.KindForbidden},
		"segments:write":               {raw: "segments:write", wantKind: fail.KindForbidden},
		"unknown":                      {raw: "emails:delete", wantKind: fail.KindInvalid},
	}
	for name, tc := range cases {
		got, err := oauth.ParseScope("scope", tc.raw)
		if tc.want != nil {
			if err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("%s: %v, %v; want %v", name, got, err, tc.want)
			}
			continue
		}
		if fail.KindOf(err) != tc.wantKind {
			t.Errorf("%s: %v, want kind %v", name, err, tc.wantKind)
		}
	}
	for _, s := range apikey.FullAccess {
		if !oauth.Grantable(s) {
			t.Errorf("%s is not grantable", s)
		}
	}
	for _, s := range []apikey.Scope{apikey.EmailSendBulk, apikey.SegmentsWrite, "nope"} {
		if oauth.Grantable(s) {
			t.Errorf("%s is grantable", s)
		}
	}
}

func TestNarrow(t *testing.T) {
	asked := []apikey.Scope{apikey.EmailsRead, apikey.EmailSend}
	cases := map[string]struct {
		kept []string
		want []apikey.Scope // nil: refused
	}{
		"all":                    {kept: []string{"emails:read", "email:send"}, want: asked},
		"one":                    {kept: []string{"email:send"}, want: []apikey.Scope{apikey.EmailSend}},
		"none":                   {kept: nil},
		"one not asked":          {kept: []string{"contacts:read"}},
		"deliberate slipped in":  {kept: []string{"emails:read", "email:send_bulk"}},
		"segments:write slipped": {kept: []string{"segments:write"}},
	}
	for name, tc := range cases {
		got, err := oauth.Narrow(asked, tc.kept)
		if tc.want == nil {
			if err == nil {
				t.Errorf("%s: got %v, want refused", name, got)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, %v; want %v", name, got, err, tc.want)
		}
	}
}

func TestTokens(t *testing.T) {
	a := oauth.NewToken(oauth.AccessPrefix)
	if !oauth.IsAccessToken(a) || oauth.IsToken(a, oauth.RefreshPrefix) {
		t.Errorf("access token %q not recognised as one (and only one)", a)
	}
	if _, ok := apikey.Parse(a); ok {
		t.Errorf("access token %q parses as an API key", a)
	}
	if oauth.NewToken(oauth.AccessPrefix) == a {
		t.Error("two tokens alike")
	}
	for _, bad := range []string{"", oauth.AccessPrefix, a[:len(a)-1], a + "A", strings.Replace(a, a[10:11], "+", 1)} {
		if oauth.IsAccessToken(bad) {
			t.Errorf("IsAccessToken(%q) = true", bad)
		}
	}
}
