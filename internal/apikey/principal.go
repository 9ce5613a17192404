package apikey

import (
	"errors"
	"slices"
	"time"
)

// RequestsPerMinute is the per-key rate limit of the spec.
const RequestsPerMinute = 1000

// ErrUnknownKey: no such key, or revoked, or replaced by a regeneration.
var ErrUnknownKey = errors.New("unknown api key")

// RateLimitedError says the key is over its limit until RetryAfter passes.
type RateLimitedError struct {
	RetryAfter time.Duration
}

func (e *RateLimitedError) Error() string { return "rate limited" }

// Principal is the authenticated caller of one request: the key's workspace,
// environment and scopes.
type Principal struct {
	WorkspaceID string
	KeyID       string
	// GrantID is the OAuth connection whose access token this is; "" for
	// an API key.
	GrantID     string
	Environment Environment
	// Scopes is nil for a key created before scopes existed (full access).
	Scopes []Scope
	// ClientID, ClientName and GrantedBy name a connection's application
	// and the owner who approved it, carried on its access token so a
	// send is marked as the connection's without another read.
	ClientID, ClientName, GrantedBy string
}

// Has reports whether the principal may use scope s.
func (p Principal) Has(s Scope) bool {
	if p.Scopes == nil {
		return slices.Contains(FullAccess, s) // legacy keys have the Full access preset
	}
	return slices.Contains(p.Scopes, s)
}
