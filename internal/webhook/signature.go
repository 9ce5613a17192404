package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"
)

// DefaultTolerance is the replay window Verify uses when given none.
const DefaultTolerance = 300 * time.Second

var (
	// ErrSignatureHeader: the header is missing or malformed.
	ErrSignatureHeader = errors.New("malformed signature header")
	// ErrSignatureMismatch: no v1 signature matches the body.
	ErrSignatureMismatch = errors.New("signature does not match")
	// ErrSignatureExpired: t is outside the tolerance around now.
	ErrSignatureExpired = errors.New("signature timestamp outside the tolerance")
)

// Sign returns the X-Service-Signature value of body sent at t:
// "t=<unix seconds>" then ",v1=<hex HMAC-SHA256 of "<t>.<body>">" for each
// secret, in the order given (newest first), each keyed by the whole
// secret string (whsec_ prefix included, not decoded). Several secrets
// sign during a rotation, so a receiver holding either one verifies.
func Sign(t time.Time, body []byte, secrets ...string) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	var b strings.Builder
	b.WriteString("t=" + ts)
	for _, secret := range secrets {
		b.WriteString(",v1=" + hex.EncodeToString(mac(secret, ts, body)))
	}
	return b.String()
}

func mac(secret, ts string, body []byte) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts))
	m.Write([]byte{'.'})
	m.Write(body)
	return m.Sum(nil)
}

// Verify checks a delivery as a receiver should: over the raw body bytes,
// before any JSON parsing, with a constant-time comparison, accepting any
// of several v1 values, and refusing a timestamp more than tolerance away
// from now (tolerance <= 0 means DefaultTolerance).
func Verify(secret string, header string, body []byte, now time.Time, tolerance time.Duration) error {
	if tolerance <= 0 {
		tolerance = DefaultTolerance
	}
	var ts string
	var sigs [][]byte
	for part := range strings.SplitSeq(header, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return ErrSignatureHeader
		}
		switch k {
		case "t":
			if ts != "" {
				return ErrSignatureHeader
			}
			ts = v
		case "v1":
			sig, err := hex.DecodeString(v)
			if err != nil || len(sig) != sha256.Size {
				return ErrSignatureHeader
			}
			sigs = append(sigs, sig)
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || len(sigs) == 0 {
		return ErrSignatureHeader
	}
	want := mac(secret, ts, body)
	matched := false
	for _, sig := range sigs {
		if hmac.Equal(sig, want) {
			matched = true
		}
	}
	if !matched {
		return ErrSignatureMismatch
	}
	if d := now.Sub(time.Unix(sec, 0)); d > tolerance || d < -tolerance {
		return ErrSignatureExpired
	}
	return nil
}
