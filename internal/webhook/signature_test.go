package webhook_test

import (
	"errors"
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
	if got := webhook.Sign("whsec_test", time.Unix(1700000000, 0), []byte(`{"id":"evt_1"}`)); got != want {
		t.Errorf("Sign = %q, want %q", got, want)
	}
}

func TestVerify(t *testing.T) {
	const secret = "whsec_c2VjcmV0LXNpZ25pbmcta2V5LWZvci10ZXN0cy0xMjM0NTY3OA"
	body := []byte(`{"id":"evt_1","type":"email.delivered","created_at":"2026-01-01T00:00:00.000Z","data":null}`)
	sent := time.Unix(1_800_000_000, 0)
	good := webhook.Sign(secret, sent, body)
	_, v1, _ := strings.Cut(good, ",")
	otherV1 := strings.SplitN(webhook.Sign("whsec_other", sent, body), ",", 2)[1]
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
