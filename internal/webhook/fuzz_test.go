package webhook_test

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/webhook"
)

// FuzzSignature: a body signed with a secret verifies with it, the same
// body with one byte changed or under another timestamp does not, and any
// header at all is either refused with one of Verify's errors or carries
// the signature Sign makes.
func FuzzSignature(f *testing.F) {
	f.Add("whsec_c2VjcmV0", []byte(`{"id":"evt_1"}`), int64(1_800_000_000), uint32(3), "t=1800000000,v1=00")
	f.Fuzz(func(t *testing.T, secret string, body []byte, unix int64, flip uint32, header string) {
		at := time.Unix(unix, 0)
		signed := webhook.Sign(at, body, secret)
		if err := webhook.Verify(secret, signed, body, at, 0); err != nil {
			t.Fatalf("Verify(Sign(%q)) = %v", body, err)
		}
		if len(body) > 0 {
			changed := append([]byte(nil), body...)
			changed[int(flip%uint32(len(body)))] ^= byte(flip>>8) | 1
			if err := webhook.Verify(secret, signed, changed, at, 0); !errors.Is(err, webhook.ErrSignatureMismatch) {
				t.Fatalf("a changed byte: Verify = %v, want a mismatch", err)
			}
		}
		_, v1, _ := strings.Cut(signed, ",")
		if unix < math.MaxInt64 {
			later := "t=" + strconv.FormatInt(unix+1, 10) + "," + v1
			if err := webhook.Verify(secret, later, body, at, 0); !errors.Is(err, webhook.ErrSignatureMismatch) {
				t.Fatalf("another timestamp: Verify = %v, want a mismatch", err)
			}
		}
		switch err := webhook.Verify(secret, header, body, at, time.Hour); {
		case err == nil:
			if !carriesSignature(secret, header, body) {
				t.Fatalf("Verify took %q, which lacks the signature Sign makes for its t", header)
			}
		case !errors.Is(err, webhook.ErrSignatureHeader) && !errors.Is(err, webhook.ErrSignatureMismatch) && !errors.Is(err, webhook.ErrSignatureExpired):
			t.Fatalf("Verify(%q) = %v, not one of its errors", header, err)
		}
	})
}

// carriesSignature reports whether header holds, in any case of hex, the
// v1 that Sign makes for body at the header's t.
func carriesSignature(secret, header string, body []byte) bool {
	for part := range strings.SplitSeq(header, ",") {
		ts, ok := strings.CutPrefix(strings.TrimSpace(part), "t=")
		if sec, err := strconv.ParseInt(ts, 10, 64); ok && err == nil {
			_, v1, _ := strings.Cut(webhook.Sign(time.Unix(sec, 0), body, secret), ",")
			return strings.Contains(strings.ToLower(header), v1)
		}
	}
	return false
}
