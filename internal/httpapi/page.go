package httpapi

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"net/http"
	"strconv"

	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/tokentext"
)

// Page sizes of every list endpoint.
const (
	DefaultLimit = 50
	MaxLimit     = 100
)

// Cursors seals and opens the opaque keyset cursors of list endpoints: a
// cursor is encrypted (AES-256-GCM, key derived from the secret), so it
// reveals no id or time, and bound to the workspace, the list and its
// filters (the binding is its additional data), so a cursor edited, forged
// or taken to another workspace or filter is refused. Build it once with
// NewCursors; the zero Cursors (a route that does not page) seals under an
// empty secret.
type Cursors struct {
	aead cipher.AEAD
}

// NewCursors is the Cursors of secret, its cipher built once.
func NewCursors(secret []byte) Cursors {
	return Cursors{aead: newCursorAEAD(secret)}
}

// Encode returns the cursor of position within binding.
func (c Cursors) Encode(binding, position string) string {
	aead := c.cipher()
	nonce := make([]byte, aead.NonceSize(), aead.NonceSize()+len(position)+aead.Overhead())
	rand.Read(nonce) // never returns an error since Go 1.24
	return tokentext.Encode(aead.Seal(nonce, nonce, []byte(position), []byte(binding)))
}

// Decode returns the position a cursor holds, or an invalid_field error.
func (c Cursors) Decode(binding, cursor string) (string, error) {
	bad := fail.Invalid("cursor", "cursor is malformed; pass next_cursor of a previous page unchanged with the same filters")
	aead := c.cipher()
	// Strict: a cursor whose unused trailing bits were edited is refused too.
	raw, err := tokentext.Decode(cursor)
	if err != nil || len(raw) < aead.NonceSize()+aead.Overhead() {
		return "", bad
	}
	position, err := aead.Open(nil, raw[:aead.NonceSize()], raw[aead.NonceSize():], []byte(binding))
	if err != nil {
		return "", bad
	}
	return string(position), nil
}

// cipher is c's AEAD; the zero Cursors has the empty secret's.
func (c Cursors) cipher() cipher.AEAD {
	if c.aead == nil {
		return newCursorAEAD(nil)
	}
	return c.aead
}

// newCursorAEAD is the cipher of the cursors: AES-256-GCM under a key
// derived from secret for this use alone. A cipher.AEAD from
// crypto/cipher.NewGCM is safe for concurrent use.
func newCursorAEAD(secret []byte) cipher.AEAD {
	h := hmac.New(sha256.New, secret)
	h.Write([]byte("sesame cursor encryption v1"))
	block, _ := aes.NewCipher(h.Sum(nil)) // a 32-byte key is always valid
	aead, _ := cipher.NewGCM(block)       // GCM over AES always builds
	return aead
}

// PageRequest is the limit and decoded cursor position of a list request.
type PageRequest struct {
	Limit int
	After string // position to continue after; "" for the first page
}

// ParsePage reads limit and cursor. limit defaults to 50, values over 100
// are clamped to 100, and anything below 1 or not a whole number is refused.
func (c Cursors) ParsePage(r *http.Request, binding string) (PageRequest, error) {
	q := r.URL.Query()
	page := PageRequest{Limit: DefaultLimit}
	if raw := q.Get("limit"); q.Has("limit") {
		n, err := strconv.Atoi(raw)
		if errors.Is(err, strconv.ErrRange) && n > 0 {
			err = nil // a whole number too large for int is clamped like any other
		}
		if err != nil || n < 1 {
			return PageRequest{}, fail.Invalid("limit", "limit must be a whole number from 1 to %d", MaxLimit)
		}
		page.Limit = min(n, MaxLimit)
	}
	if q.Has("cursor") {
		after, err := c.Decode(binding, q.Get("cursor"))
		if err != nil {
			return PageRequest{}, err
		}
		page.After = after
	}
	return page, nil
}

// NextCursor returns the cursor for the page after position, or nil when
// there is no more.
func (c Cursors) NextCursor(binding, position string, hasMore bool) *string {
	if !hasMore {
		return nil
	}
	s := c.Encode(binding, position)
	return &s
}

// Fetch reads one page of a list from its store: up to limit items after
// position after ("" for the first page), the position of the last one,
// and whether more follow.
type Fetch[T any] func(ctx context.Context, after string, limit int) (items []T, next string, hasMore bool, err error)

// ServeList answers a list route: it reads limit and cursor (bound to
// binding), fetches that page and writes the list envelope, each item
// rendered by view, with the cursor of the next page. Every list route
// goes through it, so all page alike.
func ServeList[T, V any](w http.ResponseWriter, r *http.Request, c Cursors, binding string, fetch Fetch[T], view func(T) V) error {
	page, err := c.ParsePage(r, binding)
	if err != nil {
		return err
	}
	items, next, hasMore, err := fetch(r.Context(), page.After, page.Limit)
	if err != nil {
		return err
	}
	out := List[V]{Data: make([]V, 0, len(items)), HasMore: hasMore, NextCursor: c.NextCursor(binding, next, hasMore)}
	for _, it := range items {
		out.Data = append(out.Data, view(it))
	}
	WriteJSON(w, http.StatusOK, out)
	return nil
}
