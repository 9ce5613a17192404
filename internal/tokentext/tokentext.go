// Package tokentext is the text form of every token the service issues
// (unsubscribe links, list cursors): unpadded base64url, read back only
// exactly as it was written.
package tokentext

import (
	"encoding/base64"
	"errors"
)

// ErrMalformed is text the encoder could not have written.
var ErrMalformed = errors.New("token: not the text of a token")

// Encode writes b as a token's text.
func Encode(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// Decode reads a token's text. Go's decoder skips CR and LF even in
// strict mode, so a token with a line break inserted would still read;
// any byte outside the alphabet is refused here first.
func Decode(s string) ([]byte, error) {
	for i := range len(s) {
		if c := s[i]; !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return nil, ErrMalformed
		}
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(s)
	if err != nil {
		return nil, ErrMalformed
	}
	return b, nil
}
