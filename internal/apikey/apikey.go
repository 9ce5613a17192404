// Package apikey models Sesame API keys: their format, their hash (the only
// form stored), the environment a prefix selects, and scopes with presets.
package apikey

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"time"

	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/tokentext"
)

// Environment is where a key's sends go: live delivers, test captures.
type Environment string

const (
	Live Environment = "live"
	Test Environment = "test"
)

// Valid reports whether e is one of the two environments.
func (e Environment) Valid() bool { return e == Live || e == Test }

// Prefix is the key prefix that selects e.
func (e Environment) Prefix() string { return "ps_" + string(e) + "_" }

// secretLen is the number of random base62 characters after the prefix:
// 40 characters carry about 238 bits.
const secretLen = 40

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// Generate returns a new random key for environment e.
func Generate(e Environment) string {
	var b strings.Builder
	b.WriteString(e.Prefix())
	buf := make([]byte, 2*secretLen)
	for b.Len() < len(e.Prefix())+secretLen {
		rand.Read(buf) // never returns an error since Go 1.24
		for _, c := range buf {
			// Rejection sampling keeps every character equally likely.
			if c < 248 && b.Len() < len(e.Prefix())+secretLen { // 248 = 4*62
				b.WriteByte(base62[c%62])
			}
		}
	}
	return b.String()
}

// Parse returns the environment of a well-formed key, or false when the key
// has an unknown prefix or a malformed secret.
func Parse(key string) (Environment, bool) {
	for _, e := range []Environment{Live, Test} {
		secret, ok := strings.CutPrefix(key, e.Prefix())
		if !ok {
			continue
		}
		if len(secret) != secretLen {
			return "", false
		}
		for i := 0; i < len(secret); i++ {
			if !strings.ContainsRune(base62, rune(secret[i])) {
				return "", false
			}
		}
		return e, true
	}
	return "", false
}

// Hash is the stored form of a key: hex SHA-256 of the whole key.
func Hash(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// Hint is a short, non-secret reminder of a key shown in listings.
func Hint(key string) string {
	if len(key) < 12 {
		return key
	}
	return key[:12] + "…"
}

// Key is the stored description of an API key; the key itself is never
// stored, only its hash.
type Key struct {
	ID          string      `json:"id"`
	WorkspaceID string      `json:"workspace_id"`
	Name        string      `json:"name"`
	Environment Environment `json:"environment"`
	// Scopes is nil for a key created before scopes existed.
	Scopes    []Scope    `json:"scopes"`
	Hint      string     `json:"hint"`
	CreatedAt time.Time  `json:"created_at"`
	RevokedAt *time.Time `json:"revoked_at,omitempty"`
}

// ErrKeyNotFound is returned for a key id that is absent in the workspace.
var ErrKeyNotFound error = fail.NotFound("api key")

// ErrRevoked is returned when a revoked key is regenerated or revoked again.
var ErrRevoked = errors.New("api key is revoked")

// AccessTokenPrefix begins an OAuth connection's access token (issued by
// internal/oauth), which authenticates as a live key does: the store keeps
// it as a key's secret record, with an expiry.
const AccessTokenPrefix = "ps_oat_"

// IsAccessToken reports whether s is shaped as an access token: the
// prefix, then 32 random bytes in base64url (43 characters).
func IsAccessToken(s string) bool {
	rest, ok := strings.CutPrefix(s, AccessTokenPrefix)
	if !ok || len(rest) != 43 {
		return false
	}
	_, err := tokentext.Decode(rest)
	return err == nil
}
