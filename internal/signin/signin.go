// Package signin is how an owner signs in to the dashboard: a single-use
// link emailed to their address, then a session. It knows tokens, their
// hashes, expiries and the rate rules; the store, the mail and HTTP are
// given to it. Nothing it stores can be used as it is: links and sessions
// are kept only as the SHA-256 of their secret.
package signin

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"
)

// The rules of signing in (docs/decisions-dash-core-snippet.md).
const (
	// LinkTTL is how long an emailed link may be used, once.
	LinkTTL = 15 * time.Minute
	// SessionIdle ends a session not used for this long.
	SessionIdle = 12 * time.Hour
	// RateWindow is the window of the sign-in rate limits.
	RateWindow = 15 * time.Minute
	// PerAddress and PerIP are the link requests allowed per window.
	PerAddress = 5
	PerIP      = 20
	// touchEvery bounds how often a session's last use is written: a page
	// view within it extends nothing the idle expiry would notice.
	touchEvery = 5 * time.Minute
)

// Errors the dashboard answers with a page of its own.
var (
	// ErrLinkInvalid: the link is unknown, used already or expired.
	ErrLinkInvalid = errors.New("signin: the link is invalid, used or expired")
	// ErrNoSession: no session, or an expired or forged one.
	ErrNoSession = errors.New("signin: no session")
	// ErrNotOwner: the address owns no such workspace.
	ErrNotOwner = errors.New("signin: not an owner of that workspace")
)

// NewSecret returns 32 random bytes, base64url: a link token or a
// session id.
func NewSecret() string {
	b := make([]byte, 32)
	rand.Read(b) // never returns an error since Go 1.24
	return base64.RawURLEncoding.EncodeToString(b)
}

// Hash is what the store keeps of a secret: its SHA-256, hex.
func Hash(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// Link is a pending sign-in link, stored under the hash of its token.
type Link struct {
	Address   string
	ExpiresAt time.Time
}

// Session is a signed-in owner. WorkspaceID is empty until an owner of
// several workspaces picks one.
type Session struct {
	// ID is the secret of the cookie, never stored; Hash is its key.
	ID          string
	Hash        string
	Address     string
	WorkspaceID string
	CreatedAt   time.Time
	LastSeen    time.Time
}

// Expired reports whether s has been idle for SessionIdle at now.
func (s Session) Expired(now time.Time) bool { return !now.Before(s.LastSeen.Add(SessionIdle)) }

// ExpiresAt is when s ends if not used again.
func (s Session) ExpiresAt() time.Time { return s.LastSeen.Add(SessionIdle) }

// Store keeps links, sessions and rate counters, each under a TTL.
type Store interface {
	PutLink(ctx context.Context, tokenHash string, l Link) error
	// ConsumeLink deletes the link if it is there and not expired at now,
	// in one conditional delete; ErrLinkInvalid otherwise.
	ConsumeLink(ctx context.Context, tokenHash string, now time.Time) (Link, error)
	// CountRequest adds one to the counter of key in the window starting
	// at windowStart and returns the count after it.
	CountRequest(ctx context.Context, key string, windowStart time.Time) (int, error)
	PutSession(ctx context.Context, s Session) error
	// GetSession returns the session of hash; ErrNoSession when none.
	GetSession(ctx context.Context, hash string) (Session, error)
	TouchSession(ctx context.Context, hash string, lastSeen time.Time) error
	SetSessionWorkspace(ctx context.Context, hash, workspaceID string) error
	DeleteSession(ctx context.Context, hash string) error
}

// Owners tells which workspaces an address owns.
type Owners interface {
	WorkspacesOf(ctx context.Context, address string) ([]string, error)
}

// Mailer sends the sign-in link to an owner.
type Mailer interface {
	SendSignInLink(ctx context.Context, to, link string) error
}

// Service signs owners in and keeps their sessions.
type Service struct {
	Store  Store
	Owners Owners
	Mailer Mailer
	// LinkURL is the link for a token (the dashboard's URL of it).
	LinkURL func(token string) string
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

// Outcome is what a link request did; the page shown is the same for
// every one but Limited, so no answer tells whether an address owns
// anything.
type Outcome int

const (
	// Sent: the address is an owner's and a link went out.
	Sent Outcome = iota
	// Unknown: no owner has that address; nothing was sent.
	Unknown
	// Limited: the address or the IP asked too often; nothing was sent.
	Limited
)

// RequestLink emails a link to address if it owns a workspace, within
// the rate limits of the address and of ip. It returns the link too, for
// the local stack's log.
func (s *Service) RequestLink(ctx context.Context, address, ip string) (Outcome, string, error) {
	address = NormalizeAddress(address)
	now := s.now()
	window := now.Truncate(RateWindow)
	// Counted before anything is looked up, unknown addresses included:
	// the limit must not tell them apart either.
	if n, err := s.Store.CountRequest(ctx, "ip#"+ip, window); err != nil {
		return 0, "", err
	} else if n > PerIP {
		return Limited, "", nil
	}
	if n, err := s.Store.CountRequest(ctx, "addr#"+address, window); err != nil {
		return 0, "", err
	} else if n > PerAddress {
		return Limited, "", nil
	}
	workspaces, err := s.Owners.WorkspacesOf(ctx, address)
	if err != nil {
		return 0, "", err
	}
	if len(workspaces) == 0 {
		return Unknown, "", nil
	}
	token := NewSecret()
	if err := s.Store.PutLink(ctx, Hash(token), Link{Address: address, ExpiresAt: now.Add(LinkTTL)}); err != nil {
		return 0, "", err
	}
	link := s.LinkURL(token)
	if err := s.Mailer.SendSignInLink(ctx, address, link); err != nil {
		return 0, "", fmt.Errorf("send sign-in link: %w", err)
	}
	return Sent, link, nil
}

// Consume uses a link's token, once, and starts a session of its owner:
// in their workspace when they own one, with none picked when several.
func (s *Service) Consume(ctx context.Context, token string) (Session, error) {
	if token == "" || len(token) > 100 {
		return Session{}, ErrLinkInvalid
	}
	now := s.now()
	link, err := s.Store.ConsumeLink(ctx, Hash(token), now)
	if err != nil {
		return Session{}, err
	}
	workspaces, err := s.Owners.WorkspacesOf(ctx, link.Address)
	if err != nil {
		return Session{}, err
	}
	if len(workspaces) == 0 { // removed since the link was sent
		return Session{}, ErrLinkInvalid
	}
	id := NewSecret()
	sess := Session{ID: id, Hash: Hash(id), Address: link.Address, CreatedAt: now, LastSeen: now}
	if len(workspaces) == 1 {
		sess.WorkspaceID = workspaces[0]
	}
	if err := s.Store.PutSession(ctx, sess); err != nil {
		return Session{}, err
	}
	return sess, nil
}

// Session returns the live session of id and records its use; an
// expired one is deleted and ErrNoSession.
func (s *Service) Session(ctx context.Context, id string) (Session, error) {
	if id == "" {
		return Session{}, ErrNoSession
	}
	hash := Hash(id)
	sess, err := s.Store.GetSession(ctx, hash)
	if err != nil {
		return Session{}, err
	}
	now := s.now()
	if sess.Expired(now) {
		if err := s.Store.DeleteSession(ctx, hash); err != nil {
			return Session{}, err
		}
		return Session{}, ErrNoSession
	}
	if now.Sub(sess.LastSeen) >= touchEvery {
		if err := s.Store.TouchSession(ctx, hash, now); err != nil {
			return Session{}, err
		}
		sess.LastSeen = now
	}
	sess.ID = id
	return sess, nil
}

// Pick sets the workspace of a session, which its owner must own.
func (s *Service) Pick(ctx context.Context, sess Session, workspaceID string) (Session, error) {
	workspaces, err := s.Owners.WorkspacesOf(ctx, sess.Address)
	if err != nil {
		return Session{}, err
	}
	for _, ws := range workspaces {
		if ws == workspaceID {
			if err := s.Store.SetSessionWorkspace(ctx, sess.Hash, workspaceID); err != nil {
				return Session{}, err
			}
			sess.WorkspaceID = workspaceID
			return sess, nil
		}
	}
	return Session{}, ErrNotOwner
}

// SignOut ends a session on the server: its cookie no longer works.
func (s *Service) SignOut(ctx context.Context, sess Session) error {
	return s.Store.DeleteSession(ctx, sess.Hash)
}

// NormalizeAddress is the form an owner's address is kept and looked up
// in: trimmed, lowercased.
func NormalizeAddress(address string) string { return strings.ToLower(strings.TrimSpace(address)) }

// Signer signs session ids into cookie values and derives their CSRF
// tokens, with the stack's dashboard secret.
type Signer struct {
	Secret []byte
}

func (s Signer) mac(purpose, value string) string {
	m := hmac.New(sha256.New, s.Secret)
	m.Write([]byte(purpose + "\x00" + value))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// Cookie is the cookie value of session id: the id and its signature.
func (s Signer) Cookie(id string) string { return id + "." + s.mac("session", id) }

// SessionID is the id a cookie value carries, if its signature holds.
func (s Signer) SessionID(cookie string) (string, bool) {
	id, sig, ok := strings.Cut(cookie, ".")
	if !ok || id == "" || !hmac.Equal([]byte(sig), []byte(s.mac("session", id))) {
		return "", false
	}
	return id, true
}

// CSRF is the token every form of session id carries.
func (s Signer) CSRF(id string) string { return s.mac("csrf", id) }

// CheckCSRF reports whether token is session id's.
func (s Signer) CheckCSRF(id, token string) bool {
	return id != "" && hmac.Equal([]byte(token), []byte(s.CSRF(id)))
}
