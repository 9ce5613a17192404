package oauth

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/fail"
)

// Store keeps clients, codes, grants and tokens. Every token is stored
// under its hash.
type Store interface {
	PutClient(ctx context.Context, c Client, expiresAt time.Time) error
	// GetClient returns ErrNotFound for an unknown or expired client.
	GetClient(ctx context.Context, id string) (Client, error)
	PutCode(ctx context.Context, c Code) error
	// RedeemCode marks the code used and returns it; a code used before
	// is returned with Used set (and the grant it issued), an unknown or
	// expired one is ErrNotFound.
	RedeemCode(ctx context.Context, hash string, now time.Time) (Code, error)
	// CreateGrant stores g with its first tokens, records its id on the
	// code and keeps the client (an approved client does not expire).
	CreateGrant(ctx context.Context, g Grant, codeHash string, a Access, r Refresh) error
	// GetRefresh returns ErrNotFound for an unknown or expired token.
	GetRefresh(ctx context.Context, hash string) (Refresh, error)
	GetGrant(ctx context.Context, workspaceID, id string) (Grant, error)
	// Rotate marks old used and replaces the grant's tokens with a and r,
	// only if old is still the grant's live refresh token and the grant is
	// not revoked (else ErrStale).
	Rotate(ctx context.Context, g Grant, old Refresh, a Access, r Refresh, now time.Time) error
	// Revoke marks the grant revoked and deletes its live tokens.
	Revoke(ctx context.Context, g Grant, now time.Time) error
	// ListGrants returns the workspace's grants, newest first.
	ListGrants(ctx context.Context, workspaceID string) ([]Grant, error)
}

// Store errors.
var (
	ErrNotFound = errors.New("oauth: not found")
	ErrStale    = errors.New("oauth: changed meanwhile")
)

// Auditor records connection events in the workspace's audit log.
type Auditor interface {
	Record(ctx context.Context, workspaceID, actor, action, target string) error
}

// The audited actions of connections.
const (
	ActionGranted   = "connection.granted"
	ActionRefreshed = "connection.refreshed"
	ActionRevoked   = "connection.revoked"
	// ActionReplayed is a refresh token or code used twice: the grant is
	// revoked, since one of the two users holds a stolen token.
	ActionReplayed = "connection.replay_revoked"
)

// Service is the authorization server's one service.
type Service struct {
	Store Store
	Audit Auditor
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

func (s *Service) now() time.Time {
	if s.Now == nil {
		return time.Now().UTC()
	}
	return s.Now().UTC()
}

// Registration is a dynamic client registration request (RFC 7591).
type Registration struct {
	ClientName   string
	RedirectURIs []string
	// GrantTypes and ResponseTypes, when given, must be what we serve.
	GrantTypes    []string
	ResponseTypes []string
	// TokenEndpointAuthMethod, when given, must be "none": clients are
	// public, PKCE is their proof.
	TokenEndpointAuthMethod string
}

// Register stores a new public client.
func (s *Service) Register(ctx context.Context, reg Registration) (Client, error) {
	name := strings.TrimSpace(reg.ClientName)
	switch {
	case name == "":
		return Client{}, fail.Missing("client_name")
	case len(name) > MaxClientName || strings.ContainsFunc(name, isControl):
		return Client{}, fail.Invalid("client_name", "client_name must be at most %d characters, without control characters", MaxClientName)
	case len(reg.RedirectURIs) == 0:
		return Client{}, fail.Missing("redirect_uris")
	case len(reg.RedirectURIs) > MaxRedirectURIs:
		return Client{}, fail.Invalid("redirect_uris", "at most %d redirect URIs", MaxRedirectURIs)
	case reg.TokenEndpointAuthMethod != "" && reg.TokenEndpointAuthMethod != "none":
		return Client{}, fail.Invalid("token_endpoint_auth_method", "only public clients (none) are registered; PKCE proves the client")
	}
	for _, g := range reg.GrantTypes {
		if g != "authorization_code" && g != "refresh_token" {
			return Client{}, fail.Invalid("grant_types", "grant type %q is not served; use authorization_code and refresh_token", g)
		}
	}
	for _, t := range reg.ResponseTypes {
		if t != "code" {
			return Client{}, fail.Invalid("response_types", "response type %q is not served; use code", t)
		}
	}
	for _, u := range reg.RedirectURIs {
		if err := CheckRedirectURI(u); err != nil {
			return Client{}, err
		}
	}
	now := s.now()
	c := Client{ID: ClientPrefix + hexID(), Name: name, RedirectURIs: slices.Clone(reg.RedirectURIs), CreatedAt: now}
	if err := s.Store.PutClient(ctx, c, now.Add(UnusedClientTTL)); err != nil {
		return Client{}, unavailable(err)
	}
	return c, nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// AuthRequest is an authorization request (RFC 6749 §4.1.1 with PKCE).
type AuthRequest struct {
	ClientID            string
	RedirectURI         string
	ResponseType        string
	Scope               string
	State               string
	CodeChallenge       string
	CodeChallengeMethod string
}

// Checked is an authorization request that may be shown to an owner.
type Checked struct {
	AuthRequest
	Client Client
	Scopes []apikey.Scope
}

// RedirectError is an error to send back to the client's redirect URI (RFC
// 6749 §4.1.2.1); any other error of Check must be shown to the owner
// instead, since the redirect URI cannot be trusted.
type RedirectError struct {
	Code        string // invalid_request, invalid_scope, access_denied, …
	Description string
}

func (e *RedirectError) Error() string { return e.Code + ": " + e.Description }

// Check validates an authorization request before the consent screen. An
// unknown client or unregistered redirect URI is a fail.Error; a flaw the
// client should hear of is a *RedirectError.
func (s *Service) Check(ctx context.Context, req AuthRequest) (Checked, error) {
	if req.ClientID == "" {
		return Checked{}, fail.Missing("client_id")
	}
	c, err := s.Store.GetClient(ctx, req.ClientID)
	if errors.Is(err, ErrNotFound) {
		return Checked{}, fail.Invalid("client_id", "this application is not registered (or its registration expired)")
	}
	if err != nil {
		return Checked{}, unavailable(err)
	}
	// An exact match, as OAuth 2.1 requires; one registered URI may be
	// implied.
	if req.RedirectURI == "" && len(c.RedirectURIs) == 1 {
		req.RedirectURI = c.RedirectURIs[0]
	}
	if !slices.Contains(c.RedirectURIs, req.RedirectURI) {
		return Checked{}, fail.Invalid("redirect_uri", "redirect_uri is not one the application registered")
	}
	if req.ResponseType != "code" {
		return Checked{}, &RedirectError{Code: "unsupported_response_type", Description: "response_type must be code"}
	}
	if err := CheckChallenge(req.CodeChallengeMethod, req.CodeChallenge); err != nil {
		return Checked{}, &RedirectError{Code: "invalid_request", Description: fail.MessageOf(err)}
	}
	scopes, err := ParseScope("scope", req.Scope)
	if err != nil {
		return Checked{}, &RedirectError{Code: "invalid_scope", Description: fail.MessageOf(err)}
	}
	return Checked{AuthRequest: req, Client: c, Scopes: scopes}, nil
}

// Approve issues a code for a checked request, approved by owner for
// workspaceID with the scopes kept (a subset of those asked). The caller
// proved the owner owns the workspace.
func (s *Service) Approve(ctx context.Context, req AuthRequest, owner, workspaceID string, kept []string) (string, error) {
	c, err := s.Check(ctx, req)
	if err != nil {
		return "", err
	}
	scopes, err := Narrow(c.Scopes, kept)
	if err != nil {
		return "", err
	}
	code := NewToken(CodePrefix)
	err = s.Store.PutCode(ctx, Code{
		Hash: Hash(code), ClientID: c.Client.ID, RedirectURI: c.RedirectURI, Challenge: c.CodeChallenge,
		WorkspaceID: workspaceID, Scopes: scopes, GrantedBy: owner, ExpiresAt: s.now().Add(CodeTTL),
	})
	if err != nil {
		return "", unavailable(err)
	}
	return code, nil
}

// Tokens are what the token endpoint returns.
type Tokens struct {
	Access    string
	Refresh   string
	ExpiresIn time.Duration
	Scopes    []apikey.Scope
}

// Exchange redeems a code (RFC 6749 §4.1.3 with PKCE): client, redirect URI
// and verifier must match. A code used twice revokes what it issued.
func (s *Service) Exchange(ctx context.Context, clientID, code, redirectURI, verifier, scope string) (Tokens, error) {
	if err := refuseDeliberate(scope); err != nil {
		return Tokens{}, err
	}
	switch {
	case clientID == "":
		return Tokens{}, fail.Missing("client_id")
	case code == "":
		return Tokens{}, fail.Missing("code")
	case verifier == "":
		return Tokens{}, fail.Missing("code_verifier")
	case !IsToken(code, CodePrefix):
		return Tokens{}, invalidGrant("code", "the code is unknown, expired or used")
	}
	now := s.now()
	c, err := s.Store.RedeemCode(ctx, Hash(code), now)
	if errors.Is(err, ErrNotFound) {
		return Tokens{}, invalidGrant("code", "the code is unknown, expired or used")
	}
	if err != nil {
		return Tokens{}, unavailable(err)
	}
	if c.Used {
		if c.GrantID != "" {
			s.revokeReplayed(ctx, c.WorkspaceID, c.GrantID)
		}
		return Tokens{}, invalidGrant("code", "the code is unknown, expired or used")
	}
	switch {
	case c.ClientID != clientID:
		return Tokens{}, invalidGrant("client_id", "the code was not issued to this client")
	case c.RedirectURI != redirectURI:
		return Tokens{}, invalidGrant("redirect_uri", "redirect_uri differs from the authorization request's")
	case !VerifyPKCE(verifier, c.Challenge):
		return Tokens{}, invalidGrant("code_verifier", "code_verifier does not match the code challenge")
	}
	client, err := s.Store.GetClient(ctx, clientID)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return Tokens{}, unavailable(err)
	}
	id, err := uuid.NewV7()
	if err != nil {
		return Tokens{}, err
	}
	g := Grant{
		ID: id.String(), WorkspaceID: c.WorkspaceID, ClientID: clientID, ClientName: client.Name,
		RedirectURI: c.RedirectURI, Scopes: grantable(c.Scopes), GrantedBy: c.GrantedBy, CreatedAt: now,
	}
	t, a, r := s.issue(g, now)
	g.AccessHash, g.RefreshHash = a.Hash, r.Hash
	if err := s.Store.CreateGrant(ctx, g, c.Hash, a, r); err != nil {
		return Tokens{}, unavailable(err)
	}
	s.audit(ctx, g.WorkspaceID, g.GrantedBy, ActionGranted, g.ID)
	return t, nil
}

// Refresh rotates a refresh token (OAuth 2.1 §4.3): the old one stops
// working and a replay of it revokes the whole grant.
func (s *Service) Refresh(ctx context.Context, clientID, token, scope string) (Tokens, error) {
	if err := refuseDeliberate(scope); err != nil {
		return Tokens{}, err
	}
	switch {
	case clientID == "":
		return Tokens{}, fail.Missing("client_id")
	case token == "":
		return Tokens{}, fail.Missing("refresh_token")
	case !IsToken(token, RefreshPrefix):
		return Tokens{}, invalidGrant("refresh_token", "the refresh token is unknown, expired or revoked")
	}
	now := s.now()
	old, err := s.Store.GetRefresh(ctx, Hash(token))
	if errors.Is(err, ErrNotFound) {
		return Tokens{}, invalidGrant("refresh_token", "the refresh token is unknown, expired or revoked")
	}
	if err != nil {
		return Tokens{}, unavailable(err)
	}
	if old.Used {
		s.revokeReplayed(ctx, old.WorkspaceID, old.GrantID)
		return Tokens{}, invalidGrant("refresh_token", "the refresh token was used before; the connection is revoked")
	}
	g, err := s.Store.GetGrant(ctx, old.WorkspaceID, old.GrantID)
	switch {
	case errors.Is(err, ErrNotFound):
		return Tokens{}, invalidGrant("refresh_token", "the refresh token is unknown, expired or revoked")
	case err != nil:
		return Tokens{}, unavailable(err)
	case g.RevokedAt != nil || g.RefreshHash != old.Hash:
		return Tokens{}, invalidGrant("refresh_token", "the refresh token is unknown, expired or revoked")
	case g.ClientID != clientID:
		return Tokens{}, invalidGrant("client_id", "the refresh token was not issued to this client")
	}
	if scope != "" {
		asked, err := ParseScope("scope", scope)
		if err != nil {
			return Tokens{}, err
		}
		if narrowed, err := Narrow(g.Scopes, scopeStrings(asked)); err == nil {
			g.Scopes = narrowed
		} else {
			return Tokens{}, fail.Errorf(fail.KindForbidden, fail.InsufficientScope, "scope", "a refresh may only narrow the connection's scopes")
		}
	}
	t, a, r := s.issue(g, now)
	err = s.Store.Rotate(ctx, g, old, a, r, now)
	if errors.Is(err, ErrStale) {
		// Another request rotated it first: this one is a replay.
		s.revokeReplayed(ctx, old.WorkspaceID, old.GrantID)
		return Tokens{}, invalidGrant("refresh_token", "the refresh token was used before; the connection is revoked")
	}
	if err != nil {
		return Tokens{}, unavailable(err)
	}
	s.audit(ctx, g.WorkspaceID, "client:"+g.ClientName, ActionRefreshed, g.ID)
	return t, nil
}

// Grants lists the workspace's connections, newest first.
func (s *Service) Grants(ctx context.Context, workspaceID string) ([]Grant, error) {
	gs, err := s.Store.ListGrants(ctx, workspaceID)
	if err != nil {
		return nil, unavailable(err)
	}
	return gs, nil
}

// Revoke ends a connection at once: its tokens stop working.
func (s *Service) Revoke(ctx context.Context, workspaceID, grantID, actor string) error {
	g, err := s.Store.GetGrant(ctx, workspaceID, grantID)
	if errors.Is(err, ErrNotFound) {
		return fail.NotFound("connection")
	}
	if err != nil {
		return unavailable(err)
	}
	if g.RevokedAt != nil {
		return nil
	}
	if err := s.Store.Revoke(ctx, g, s.now()); err != nil {
		return unavailable(err)
	}
	s.audit(ctx, workspaceID, actor, ActionRevoked, grantID)
	return nil
}

func (s *Service) revokeReplayed(ctx context.Context, workspaceID, grantID string) {
	g, err := s.Store.GetGrant(ctx, workspaceID, grantID)
	if err != nil || g.RevokedAt != nil {
		return
	}
	if s.Store.Revoke(ctx, g, s.now()) == nil {
		s.audit(ctx, workspaceID, "client:"+g.ClientName, ActionReplayed, grantID)
	}
}

// issue makes a new pair of tokens for g.
func (s *Service) issue(g Grant, now time.Time) (Tokens, Access, Refresh) {
	access, refresh := NewToken(AccessPrefix), NewToken(RefreshPrefix)
	a := Access{Hash: Hash(access), GrantID: g.ID, ClientID: g.ClientID, ClientName: g.ClientName, GrantedBy: g.GrantedBy, WorkspaceID: g.WorkspaceID, Scopes: g.Scopes, ExpiresAt: now.Add(AccessTTL)}
	r := Refresh{Hash: Hash(refresh), GrantID: g.ID, WorkspaceID: g.WorkspaceID, ExpiresAt: now.Add(RefreshTTL)}
	return Tokens{Access: access, Refresh: refresh, ExpiresIn: AccessTTL, Scopes: g.Scopes}, a, r
}

// audit records an event; the log is a record, not a gate, so a failed
// write does not undo what was done.
func (s *Service) audit(ctx context.Context, workspaceID, actor, action, target string) {
	if s.Audit != nil {
		_ = s.Audit.Record(ctx, workspaceID, actor, action, target)
	}
}

// refuseDeliberate refuses a scope parameter naming a deliberate-only
// scope at the token endpoint, whatever the grant holds.
func refuseDeliberate(scope string) error {
	for _, f := range strings.Fields(scope) {
		if apikey.Scope(f).Deliberate() {
			return fail.Errorf(fail.KindForbidden, fail.InsufficientScope, "scope", "%s is never granted to a connection", f)
		}
	}
	return nil
}

// grantable drops what a connection may never hold: a store holding one
// (by a bug or an edit) still cannot pass it on.
func grantable(scopes []apikey.Scope) []apikey.Scope {
	return slices.DeleteFunc(slices.Clone(scopes), func(s apikey.Scope) bool { return !Grantable(s) })
}

func scopeStrings(scopes []apikey.Scope) []string {
	out := make([]string, len(scopes))
	for i, s := range scopes {
		out[i] = string(s)
	}
	return out
}

func invalidGrant(param, msg string) error {
	return fail.Errorf(fail.KindInvalid, InvalidGrant, param, "%s", msg)
}

// InvalidGrant refines KindInvalid for a code, verifier or refresh token
// that does not hold (RFC 6749 §5.2 invalid_grant).
const InvalidGrant fail.Reason = "invalid_grant"

func unavailable(err error) error {
	if _, ok := fail.As(err); ok {
		return err
	}
	e := fail.Unavailable(2*time.Second, "the authorization server cannot answer right now; retry shortly")
	e.Err = err
	return e
}
