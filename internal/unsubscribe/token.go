// Package unsubscribe is the recipient's side of the audience: the signed
// token of an unsubscribe link, the link itself, and what following it
// does (a contact's subscription ends; an address with no contact goes on
// the do-not-send list). Its public pages are served by unsubscribehttp.
package unsubscribe

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/tokentext"
)

// SourceKind is what sent the email a link is in.
type SourceKind uint8

const (
	// SourceNone is a link sent by nothing Sesame tracks.
	SourceNone SourceKind = iota
	SourceCampaign
	SourceAutomation
)

// Source is the campaign or automation that sent the email; ID is a UUID,
// like every id Sesame gives.
type Source struct {
	Kind SourceKind
	ID   string
}

// Token is what an unsubscribe link identifies: the workspace, and either
// a contact (ContactID) or, for an address with no contact, the Address.
type Token struct {
	WorkspaceID string
	ContactID   string
	Address     string
	Source      Source
}

// ErrInvalidToken is a token that is not one Sesame signed with this
// secret: garbage, cut short, edited, or signed with another secret.
var ErrInvalidToken = errors.New("unsubscribe: the token is not valid")

// The token format: version, then one byte of kinds (recipient in the low
// nibble, source in the high), the workspace id, the contact id or the
// address (uvarint length, bytes), the source id when there is a source,
// and the first macSize bytes of HMAC-SHA256 over all of it; base64url
// without padding. A contact's link from a campaign is 88 characters.
const (
	version       = 1
	recipientID   = 0
	recipientAddr = 1
	macSize       = 16 // 128 bits, the shortest truncation RFC 2104 allows
	// MaxAddress is the longest address a token carries (RFC 5321's path).
	MaxAddress = 320
)

// Signer signs and verifies tokens with a key derived from Secret for this
// use alone, so a secret shared with another use signs nothing else.
type Signer struct {
	Secret []byte
}

func (s Signer) mac(payload []byte) []byte {
	k := hmac.New(sha256.New, s.Secret)
	k.Write([]byte("sesame unsubscribe token v1"))
	m := hmac.New(sha256.New, k.Sum(nil))
	m.Write(payload)
	return m.Sum(nil)[:macSize]
}

// Sign returns the token of t. Ids must be UUIDs; a token names a contact
// or an address, never both.
func (s Signer) Sign(t Token) (string, error) {
	if len(s.Secret) == 0 {
		return "", errors.New("unsubscribe: no secret to sign with")
	}
	ws, err := uuid.Parse(t.WorkspaceID)
	if err != nil {
		return "", fmt.Errorf("unsubscribe: workspace id %q: %w", t.WorkspaceID, err)
	}
	recipient := byte(recipientID)
	var who []byte
	switch {
	case t.ContactID != "" && t.Address != "":
		return "", errors.New("unsubscribe: a token names a contact or an address, not both")
	case t.ContactID != "":
		id, err := uuid.Parse(t.ContactID)
		if err != nil {
			return "", fmt.Errorf("unsubscribe: contact id %q: %w", t.ContactID, err)
		}
		who = id[:]
	case t.Address != "" && len(t.Address) <= MaxAddress:
		recipient = recipientAddr
		who = binary.AppendUvarint(nil, uint64(len(t.Address)))
		who = append(who, t.Address...)
	default:
		return "", errors.New("unsubscribe: a token names a contact or an address of at most 320 bytes")
	}
	b := append([]byte{version, recipient | byte(t.Source.Kind)<<4}, ws[:]...)
	b = append(b, who...)
	switch t.Source.Kind {
	case SourceNone:
		if t.Source.ID != "" {
			return "", errors.New("unsubscribe: a source id without a kind")
		}
	case SourceCampaign, SourceAutomation:
		id, err := uuid.Parse(t.Source.ID)
		if err != nil {
			return "", fmt.Errorf("unsubscribe: source id %q: %w", t.Source.ID, err)
		}
		b = append(b, id[:]...)
	default:
		return "", fmt.Errorf("unsubscribe: source kind %d", t.Source.Kind)
	}
	return tokentext.Encode(append(b, s.mac(b)...)), nil
}

// Verify returns the token's content, or ErrInvalidToken: the signature
// is compared in constant time before anything else is read.
func (s Signer) Verify(token string) (Token, error) {
	const min = 2 + 16 + 1 + macSize
	if len(s.Secret) == 0 || len(token) > base64.RawURLEncoding.EncodedLen(2+16+3+MaxAddress+16+macSize) {
		return Token{}, ErrInvalidToken
	}
	raw, err := tokentext.Decode(token)
	if err != nil || len(raw) < min {
		return Token{}, ErrInvalidToken
	}
	payload, sum := raw[:len(raw)-macSize], raw[len(raw)-macSize:]
	if !hmac.Equal(sum, s.mac(payload)) {
		return Token{}, ErrInvalidToken
	}
	t, ok := parse(payload)
	if !ok {
		return Token{}, ErrInvalidToken
	}
	return t, nil
}

// parse reads a signed payload; ok is false for one this version did not
// write.
func parse(b []byte) (Token, bool) {
	if b[0] != version {
		return Token{}, false
	}
	recipient, source := b[1]&0x0f, SourceKind(b[1]>>4)
	var t Token
	t.WorkspaceID = uuid.UUID(b[2:18]).String()
	rest := b[18:]
	switch recipient {
	case recipientID:
		if len(rest) < 16 {
			return Token{}, false
		}
		t.ContactID, rest = uuid.UUID(rest[:16]).String(), rest[16:]
	case recipientAddr:
		n, read := binary.Uvarint(rest)
		if read <= 0 || n == 0 || n > MaxAddress || uint64(len(rest)-read) < n {
			return Token{}, false
		}
		t.Address, rest = string(rest[read:read+int(n)]), rest[read+int(n):]
	default:
		return Token{}, false
	}
	switch source {
	case SourceNone:
	case SourceCampaign, SourceAutomation:
		if len(rest) < 16 {
			return Token{}, false
		}
		t.Source, rest = Source{Kind: source, ID: uuid.UUID(rest[:16]).String()}, rest[16:]
	default:
		return Token{}, false
	}
	return t, len(rest) == 0
}
