// Package webhook verifies Sesame's webhook deliveries.
//
//	body, _ := io.ReadAll(r.Body)
//	if err := webhook.Verify(secret, r.Header.Get(webhook.SignatureHeader), body, 5*time.Minute); err != nil {
//		http.Error(w, "bad signature", http.StatusBadRequest)
//		return
//	}
package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/sesame-mail/sesame/clients/go/api"
)

// SignatureHeader carries "t=<unix seconds>,v1=<hex>[,v1=<hex>]".
const SignatureHeader = "X-Service-Signature"

// DefaultTolerance is the replay window when Verify is given none.
const DefaultTolerance = 5 * time.Minute

var (
	// ErrHeader: the signature header is missing or malformed.
	ErrHeader = errors.New("webhook: malformed signature header")
	// ErrMismatch: no v1 signature is the body's under this secret.
	ErrMismatch = errors.New("webhook: signature does not match")
	// ErrExpired: the signed time is further than the tolerance from now.
	ErrExpired = errors.New("webhook: signature timestamp outside the tolerance")
)

// Verify checks a delivery over its raw body bytes (before any JSON
// parsing): one v1 value must be the hex HMAC-SHA256 of "<t>.<body>" keyed
// by the whole secret string (whsec_ included), compared in constant time.
// During a secret rotation Sesame signs with both secrets, so a receiver
// holding either verifies. t must be within tolerance of now (tolerance
// <= 0: DefaultTolerance).
func Verify(secret, header string, body []byte, tolerance time.Duration) error {
	return VerifyAt(secret, header, body, time.Now(), tolerance)
}

// VerifyAt is Verify with the receiver's clock given.
func VerifyAt(secret, header string, body []byte, now time.Time, tolerance time.Duration) error {
	if tolerance <= 0 {
		tolerance = DefaultTolerance
	}
	var ts string
	var sigs [][]byte
	for part := range strings.SplitSeq(header, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return ErrHeader
		}
		switch k {
		case "t":
			if ts != "" {
				return ErrHeader
			}
			ts = v
		case "v1":
			if sig, err := hex.DecodeString(v); err == nil && len(sig) == sha256.Size {
				sigs = append(sigs, sig)
			}
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || len(sigs) == 0 {
		return ErrHeader
	}
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts + "."))
	m.Write(body)
	want := m.Sum(nil)
	matched := false
	for _, sig := range sigs {
		// Every value is compared: no early exit to time.
		matched = hmac.Equal(sig, want) || matched
	}
	if !matched {
		return ErrMismatch
	}
	if d := now.Sub(time.Unix(sec, 0)); d > tolerance || d < -tolerance {
		return ErrExpired
	}
	return nil
}

// Event is a delivery's body: the same object as an item of GET /events.
type Event = api.Event

// Parse verifies a delivery and decodes its body.
func Parse(secret, header string, body []byte, tolerance time.Duration) (Event, error) {
	var e Event
	if err := Verify(secret, header, body, tolerance); err != nil {
		return e, err
	}
	if err := json.Unmarshal(body, &e); err != nil {
		return e, errors.New("webhook: body is not an event: " + err.Error())
	}
	return e, nil
}
