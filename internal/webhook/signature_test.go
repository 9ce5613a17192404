package webhook_test

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/webhook"
)

func TestSignMatchesTheSpec(t *testing.T) {
	// Computed outside Go from the spec's rule:
	// printf '%s' '1700000000.{"id":"evt_1"}' | openssl dgst -sha256 -hmac 'whsec_test'
	const want = "t=1700000000,v1=c89214b5b5da833daed6f0b8c5bb6bd58cea9022bd80ccc78230f3942d632925"
	if got := webhook.Sign(time.Unix(1700000000, 0), []byte(`{"id":"evt_1"}`), "whsec_test"); got != want {
		t.Errorf("Sign = %q, want %q", got, want)
	}
}

func TestSignWithSeveralSecrets(t *testing.T) {
	body := []byte(`{"id":"evt_1"}`)
	at := time.Unix(1700000000, 0)
	one := webhook.Sign(at, body, "whsec_new")
	_, oldV1, _ := strings.Cut(webhook.Sign(at, body, "whsec_old"), ",")
	header := webhook.Sign(at, body, "whsec_new", "whsec_old")
	// One t, then a v1 per secret, newest first.
	if want := one + "," + oldV1; header != want {
		t.Errorf("Sign(new, old) = %q, want %q", header, want)
	}
	for _, secret := range []string{"whsec_new", "whsec_old"} {
		if err := webhook.Verify(secret, header, body, at, 0); err != nil {
			t.Errorf("Verify with %s: %v", secret, err)
		}
	}
	if err := webhook.Verify("whsec_other", header, body, at, 0); !errors.Is(err, webhook.ErrSignatureMismatch) {
		t.Errorf("Verify with another secret = %v, want a mismatch", err)
	}
}

func TestSigningSecrets(t *testing.T) {
	rotated := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	until := rotated.Add(webhook.RotationOverlap)
	if webhook.RotationOverlap != 24*time.Hour {
		t.Errorf("RotationOverlap = %v, want 24h", webhook.RotationOverlap)
	}
	rotatedEP := webhook.Endpoint{Secret: "whsec_new", PreviousSecret: "whsec_old", PreviousSecretUntil: &until}
	cases := map[string]struct {
		ep   webhook.Endpoint
		now  time.Time
		want []string
	}{
		"never rotated":               {ep: webhook.Endpoint{Secret: "whsec_new"}, now: rotated, want: []string{"whsec_new"}},
		"just rotated":                {ep: rotatedEP, now: rotated, want: []string{"whsec_new", "whsec_old"}},
		"a second before the 24 h":    {ep: rotatedEP, now: until.Add(-time.Second), want: []string{"whsec_new", "whsec_old"}},
		"at the 24 h edge":            {ep: rotatedEP, now: until, want: []string{"whsec_new"}},
		"a day after the overlap":     {ep: rotatedEP, now: until.Add(24 * time.Hour), want: []string{"whsec_new"}},
		"an old secret with no limit": {ep: webhook.Endpoint{Secret: "whsec_new", PreviousSecret: "whsec_old"}, now: rotated, want: []string{"whsec_new"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := tc.ep.SigningSecrets(tc.now); !slices.Equal(got, tc.want) {
				t.Errorf("SigningSecrets = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestVerify(t *testing.T) {
	const secret = "whsec_c2VjcmV0LXNpZ25pbmcta2V5LWZvci10ZXN0cy0xMjM0NTY3OA"
	body := []byte(`{"id":"evt_1","type":"email.delivered","created_at":"2026-01-01T00:00:00.000Z","data":null}`)
	sent := time.Unix(1_800_000_000, 0)
	good := webhook.Sign(sent, body, secret)
	_, v1, _ := strings.Cut(good, ",")
	otherV1 := strings.SplitN(webhook.Sign(sent, body, "whsec_other"), ",", 2)[1]
	ts := "t=" + strconv.FormatInt(sent.Unix(), 10)

	cases := map[string]struct {
		secret    string
		header    string
		body      []byte
		now       time.Time
		tolerance time.Duration
		want      error
	}{
		"valid":                         {header: good, now: sent},
		"valid 299 s later":             {header: good, now: sent.Add(299 * time.Second)},
		"valid with spaces":             {header: ts + ", " + v1, now: sent},
		"one of several v1 matches":     {header: ts + "," + otherV1 + "," + v1, now: sent},
		"unknown scheme ignored":        {header: good + ",v0=abc", now: sent},
		"too old":                       {header: good, now: sent.Add(301 * time.Second), want: webhook.ErrSignatureExpired},
		"from the future":               {header: good, now: sent.Add(-301 * time.Second), want: webhook.ErrSignatureExpired},
		"custom tolerance":              {header: good, now: sent.Add(time.Hour), tolerance: 2 * time.Hour},
		"wrong secret":                  {secret: "whsec_other", header: good, now: sent, want: webhook.ErrSignatureMismatch},
		"secret without prefix":         {secret: strings.TrimPrefix(secret, "whsec_"), header: good, now: sent, want: webhook.ErrSignatureMismatch},
		"body changed":                  {header: good, body: append([]byte(" "), body...), now: sent, want: webhook.ErrSignatureMismatch},
		"timestamp changed":             {header: "t=1800000001," + v1, now: sent, want: webhook.ErrSignatureMismatch},
		"only another secret's v1":      {header: ts + "," + otherV1, now: sent, want: webhook.ErrSignatureMismatch},
		"empty header":                  {header: "", now: sent, want: webhook.ErrSignatureHeader},
		"no timestamp":                  {header: v1, now: sent, want: webhook.ErrSignatureHeader},
		"no signature":                  {header: ts, now: sent, want: webhook.ErrSignatureHeader},
		"signature not hex":             {header: ts + ",v1=zz", now: sent, want: webhook.ErrSignatureHeader},
		"signature truncated":           {header: good[:len(good)-2], now: sent, want: webhook.ErrSignatureHeader},
		"two timestamps":                {header: ts + "," + ts + "," + v1, now: sent, want: webhook.ErrSignatureHeader},
		"timestamp not a number":        {header: "t=soon," + v1, now: sent, want: webhook.ErrSignatureHeader},
		"part without equals":           {header: good + ",garbage", now: sent, want: webhook.ErrSignatureHeader},
		"mismatch wins over expiry too": {secret: "whsec_other", header: good, now: sent.Add(time.Hour), want: webhook.ErrSignatureMismatch},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := tc.secret
			if s == "" {
				s = secret
			}
			b := tc.body
			if b == nil {
				b = body
			}
			err := webhook.Verify(s, tc.header, b, tc.now, tc.tolerance)
			if !errors.Is(err, tc.want) || (tc.want == nil && err != nil) {
				t.Errorf("Verify = %v, want %v", err, tc.want)
			}
		})
	}
}
