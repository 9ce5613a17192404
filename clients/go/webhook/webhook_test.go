package webhook_test

import (
	"errors"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/clients/go/webhook"
)

// The signatures below were computed by OpenSSL, not by this package:
// printf '%s' '1700000000.<body>' | openssl dgst -sha256 -hmac '<secret>' -hex
const (
	body   = `{"id":"evt_1","type":"email.delivered"}`
	oldSec = "whsec_test_secret_one"
	newSec = "whsec_test_secret_two"
	sigOld = "72444948b5080ff505528889c6d674d4a6986a7acc1d6e90d0c721598f59810d"
	sigNew = "808cc80d730b1d5a2026e53e9dd1d36e7da826c8c5e947a6ee6a5f6bff5c2663"
)

var signedAt = time.Unix(1700000000, 0)

func TestVerifyAt(t *testing.T) {
	rotation := "t=1700000000,v1=" + sigNew + ",v1=" + sigOld
	cases := []struct {
		name   string
		secret string
		header string
		body   string
		now    time.Time
		want   error
	}{
		{"one signature", oldSec, "t=1700000000,v1=" + sigOld, body, signedAt, nil},
		{"rotation, new secret", newSec, rotation, body, signedAt, nil},
		{"rotation, old secret", oldSec, rotation, body, signedAt, nil},
		{"spaces after commas", oldSec, "t=1700000000, v1=" + sigOld, body, signedAt, nil},
		{"within the tolerance", oldSec, rotation, body, signedAt.Add(299 * time.Second), nil},
		{"another secret", "whsec_other", rotation, body, signedAt, webhook.ErrMismatch},
		{"body changed", oldSec, rotation, body + " ", signedAt, webhook.ErrMismatch},
		{"timestamp changed", oldSec, "t=1700000001,v1=" + sigOld, body, signedAt, webhook.ErrMismatch},
		{"too old", oldSec, rotation, body, signedAt.Add(301 * time.Second), webhook.ErrExpired},
		{"too far ahead", oldSec, rotation, body, signedAt.Add(-301 * time.Second), webhook.ErrExpired},
		{"empty header", oldSec, "", body, signedAt, webhook.ErrHeader},
		{"no v1", oldSec, "t=1700000000", body, signedAt, webhook.ErrHeader},
		{"no t", oldSec, "v1=" + sigOld, body, signedAt, webhook.ErrHeader},
		{"two t", oldSec, "t=1700000000,t=1700000000,v1=" + sigOld, body, signedAt, webhook.ErrHeader},
		{"not hex", oldSec, "t=1700000000,v1=zz", body, signedAt, webhook.ErrHeader},
		{"only a future scheme", oldSec, "t=1700000000,v2=" + sigOld, body, signedAt, webhook.ErrHeader},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := webhook.VerifyAt(c.secret, c.header, []byte(c.body), c.now, 300*time.Second)
			if !errors.Is(err, c.want) {
				t.Errorf("VerifyAt = %v, want %v", err, c.want)
			}
		})
	}
}

func TestVerifyDefaultToleranceIsFiveMinutes(t *testing.T) {
	h := "t=1700000000,v1=" + sigOld
	if err := webhook.VerifyAt(oldSec, h, []byte(body), signedAt.Add(5*time.Minute), 0); err != nil {
		t.Errorf("at 5 min: %v", err)
	}
	if err := webhook.VerifyAt(oldSec, h, []byte(body), signedAt.Add(5*time.Minute+time.Second), 0); !errors.Is(err, webhook.ErrExpired) {
		t.Errorf("at 5 min 1 s: %v, want ErrExpired", err)
	}
}

func TestParseRefusesBeforeDecoding(t *testing.T) {
	// A stale delivery is refused by Verify (the clock is now, the
	// signature from 2023) before its body is read.
	if _, err := webhook.Parse(oldSec, "t=1700000000,v1="+sigOld, []byte(body), time.Minute); !errors.Is(err, webhook.ErrExpired) {
		t.Errorf("Parse = %v, want ErrExpired", err)
	}
}
