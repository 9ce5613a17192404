// Package oauth is Sesame's OAuth 2.1 authorization server for its own API,
// as the MCP authorization specification asks: clients registered
// dynamically (RFC 7591), the authorization code grant with PKCE (S256
// only), refresh tokens that rotate on use. A grant is an owner's consent
// for one client in one workspace; its access token is a scoped key in all
// but name (the store keeps it as an API key's secret record, so /api/v1
// checks it as it checks a key). Only SHA-256 hashes of codes and tokens
// are stored. email:send_bulk and segments:write are never granted.
package oauth

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/fail"
)

// The lifetimes of what the server issues.
const (
	// CodeTTL is how long an authorization code may be redeemed, once.
	CodeTTL = 10 * time.Minute
	// AccessTTL is an access token's life.
	AccessTTL = time.Hour
	// RefreshTTL is how long a refresh token may be used, once; each use
	// issues a new one, so a connection in use lives on.
	RefreshTTL = 30 * 24 * time.Hour
	// UnusedClientTTL is how long a registered client that no owner
	// approved is kept: registration needs no credentials.
	UnusedClientTTL = 24 * time.Hour
)

// Token prefixes tell tokens apart from keys and from each other.
const (
	AccessPrefix  = apikey.AccessTokenPrefix
	RefreshPrefix = "ps_ort_"
	CodePrefix    = "ps_oac_"
	ClientPrefix  = "sesame-client-"
)

// secretChars is the length of a token's random part: 32 bytes, base64url.
const secretChars = 43

// NewToken returns a new random token with prefix p.
func NewToken(p string) string {
	b := make([]byte, 32)
	rand.Read(b) // never returns an error since Go 1.24
	return p + base64.RawURLEncoding.EncodeToString(b)
}

// IsToken reports whether s is well formed for prefix p.
func IsToken(s, p string) bool {
	rest, ok := strings.CutPrefix(s, p)
	if !ok || len(rest) != secretChars {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(rest)
	return err == nil
}

// IsAccessToken reports whether s is shaped as an access token.
func IsAccessToken(s string) bool { return apikey.IsAccessToken(s) }

// Hash is the stored form of a token or code: hex SHA-256. An access token
// is hashed as an API key is (apikey.Hash), since it is stored as one.
func Hash(token string) string { return apikey.Hash(token) }

// Client is a registered OAuth client (RFC 7591): public, no secret.
type Client struct {
	ID           string
	Name         string
	RedirectURIs []string
	CreatedAt    time.Time
}

// Grant is an owner's consent for a client in a workspace: the connection
// the dashboard lists and revokes.
type Grant struct {
	ID          string
	WorkspaceID string
	ClientID    string
	ClientName  string
	RedirectURI string
	Scopes      []apikey.Scope
	// GrantedBy is the owner who approved it.
	GrantedBy string
	CreatedAt time.Time
	// RefreshedAt is the last token refresh, the connection's last sign
	// of life besides its requests.
	RefreshedAt *time.Time
	RevokedAt   *time.Time
	// AccessHash and RefreshHash are the hashes of the live tokens, the
	// ones a revocation deletes.
	AccessHash  string
	RefreshHash string
}

// Code is an authorization code's stored record.
type Code struct {
	Hash        string
	ClientID    string
	RedirectURI string
	Challenge   string
	WorkspaceID string
	Scopes      []apikey.Scope
	GrantedBy   string
	ExpiresAt   time.Time
	// GrantID is the grant issued when the code was redeemed; set once.
	GrantID string
	Used    bool
}

// Refresh is a refresh token's stored record; a used one is kept until it
// expires, so its replay is recognised and revokes the grant.
type Refresh struct {
	Hash        string
	GrantID     string
	WorkspaceID string
	ExpiresAt   time.Time
	Used        bool
}

// Access is an access token's stored record: the secret record of a key
// that expires.
type Access struct {
	Hash        string
	GrantID     string
	WorkspaceID string
	Scopes      []apikey.Scope
	ExpiresAt   time.Time
	// ClientID, ClientName and GrantedBy are the grant's, so a request
	// made with the token names its connection (apikey.Principal).
	ClientID, ClientName, GrantedBy string
}

// Grantable reports whether a connection may ever hold s: a known scope
// that is not deliberate-only.
func Grantable(s apikey.Scope) bool {
	return slices.Contains(apikey.AllScopes, s) && !s.Deliberate()
}

// ParseScope reads a space-separated scope parameter (RFC 6749 §3.3). An
// empty one asks for every grantable scope. A deliberate-only scope is
// refused, never silently dropped, so the client learns it cannot have it.
func ParseScope(param, raw string) ([]apikey.Scope, error) {
	fields := strings.Fields(raw)
	if len(fields) == 0 {
		return slices.Clone(apikey.FullAccess), nil
	}
	var out []apikey.Scope
	for _, f := range fields {
		s := apikey.Scope(f)
		switch {
		case s.Deliberate():
			return nil, fail.Errorf(fail.KindForbidden, fail.InsufficientScope, param, "%s is never granted to a connection; it exists only on a key minted on purpose", s)
		case !slices.Contains(apikey.AllScopes, s):
			return nil, fail.Invalid(param, "unknown scope %q", f)
		case !slices.Contains(out, s):
			out = append(out, s)
		}
	}
	return out, nil
}

// Narrow returns the scopes of asked the owner kept: kept must be a subset
// of asked and not empty.
func Narrow(asked []apikey.Scope, kept []string) ([]apikey.Scope, error) {
	var out []apikey.Scope
	for _, k := range kept {
		s := apikey.Scope(k)
		if !slices.Contains(asked, s) || !Grantable(s) {
			return nil, fail.Invalid("scope", "%q was not asked for or cannot be granted", k)
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil, fail.Invalid("scope", "keep at least one scope, or refuse the connection")
	}
	return out, nil
}

// CheckRedirectURI accepts an https URI, or an http one on a loopback
// address (RFC 8252 §7.3): absolute, no fragment, no user info.
func CheckRedirectURI(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Fragment != "" || u.User != nil || u.Opaque != "" {
		return fail.Invalid("redirect_uris", "redirect URI %q must be an absolute URL without fragment or user info", raw)
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		if isLoopback(u.Hostname()) {
			return nil
		}
	}
	return fail.Invalid("redirect_uris", "redirect URI %q must use https, or http on a loopback address", raw)
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// MaxRedirectURIs and MaxClientName bound a registration.
const (
	MaxRedirectURIs = 10
	MaxClientName   = 100
)

// CheckChallenge accepts an S256 code challenge: 43 base64url characters
// (the SHA-256 of a verifier). Plain and absent challenges are refused.
func CheckChallenge(method, challenge string) error {
	if method != "S256" {
		return fail.Invalid("code_challenge_method", "code_challenge_method must be S256")
	}
	if len(challenge) != secretChars {
		return fail.Invalid("code_challenge", "code_challenge must be the base64url SHA-256 of the verifier")
	}
	if _, err := base64.RawURLEncoding.DecodeString(challenge); err != nil {
		return fail.Invalid("code_challenge", "code_challenge must be the base64url SHA-256 of the verifier")
	}
	return nil
}

// VerifyPKCE reports whether verifier (RFC 7636 §4.1: 43 to 128 unreserved
// characters) hashes to challenge.
func VerifyPKCE(verifier, challenge string) bool {
	if len(verifier) < 43 || len(verifier) > 128 {
		return false
	}
	for i := 0; i < len(verifier); i++ {
		c := verifier[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.IndexByte("-._~", c) >= 0) {
			return false
		}
	}
	sum := sha256.Sum256([]byte(verifier))
	want := base64.RawURLEncoding.EncodeToString(sum[:])
	return subtle.ConstantTimeCompare([]byte(want), []byte(challenge)) == 1
}

// hexID is a random id for clients and grants.
func hexID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}
