package webhook_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/event"
	"github.com/sesame-mail/sesame/internal/webhook"
)

// After a rotation, a delivery is signed by the new and the old secret
// for 24 hours (a v1 each, newest first), then by the new one alone.
func TestDeliverySignedByBothSecretsDuringARotation(t *testing.T) {
	t.Parallel()
	rotatedAt := time.Now().UTC()
	cases := map[string]struct {
		notRotated bool
		now        time.Time
		wantV1     int
		oldSigns   bool
	}{
		"during the overlap":      {now: rotatedAt.Add(time.Hour), wantV1: 2, oldSigns: true},
		"a minute before its end": {now: rotatedAt.Add(webhook.RotationOverlap - time.Minute), wantV1: 2, oldSigns: true},
		"24 hours after rotating": {now: rotatedAt.Add(webhook.RotationOverlap), wantV1: 1},
		"a week after rotating":   {now: rotatedAt.Add(7 * 24 * time.Hour), wantV1: 1},
		"never rotated":           {notRotated: true, now: rotatedAt, wantV1: 1},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			rc := newReceiver(t, "127.0.0.2:0", status(http.StatusNoContent))
			ep := f.endpoint(rc.URL + "/hook")
			oldSecret, newSecret := ep.Secret, ep.Secret
			if !tc.notRotated {
				newSecret = webhook.NewSecret()
				rotated, err := f.store.Webhooks.RotateEndpointSecret(t.Context(), f.ws, ep.ID, newSecret, rotatedAt.Add(webhook.RotationOverlap))
				if err != nil {
					t.Fatal(err)
				}
				ep = rotated
			}
			// The dispatcher's clock is moved; the receiver checks at that time.
			d := dispatcher(t, f, &fakeSQS{}, webhook.DispatcherOptions{Now: func() time.Time { return tc.now }}, testPrefixes...)
			if retry := handle(t, d, message(t, job(t, ep, testEvent(f.ws, event.Delivered)), 1, time.Now())); len(retry) != 0 {
				t.Fatalf("the delivery failed: %+v", f.attempts(ep.ID))
			}
			reqs := rc.requests()
			if len(reqs) != 1 {
				t.Fatalf("receiver got %d requests, want 1", len(reqs))
			}
			header := reqs[0].header.Get(webhook.HeaderSignature)
			if n := strings.Count(header, ",v1="); n != tc.wantV1 || !strings.HasPrefix(header, "t=") || strings.Count(header, "t=") != 1 {
				t.Errorf("signature %q: %d v1 entries, want one t= and %d", header, n, tc.wantV1)
			}
			// The new secret's v1 comes first.
			if newOnly := webhook.Sign(tc.now, reqs[0].body, newSecret); !strings.HasPrefix(header, newOnly) {
				t.Errorf("signature %q does not start with the new secret's %q", header, newOnly)
			}
			if err := webhook.Verify(newSecret, header, reqs[0].body, tc.now, 0); err != nil {
				t.Errorf("the new secret does not verify: %v", err)
			}
			if err := verifyIndependently(newSecret, header, reqs[0].body, tc.now); err != nil {
				t.Errorf("the new secret does not verify independently: %v", err)
			}
			oldErr := webhook.Verify(oldSecret, header, reqs[0].body, tc.now, 0)
			if tc.oldSigns && oldErr != nil {
				t.Errorf("the old secret does not verify during the overlap: %v", oldErr)
			}
			if !tc.oldSigns && oldSecret != newSecret && oldErr == nil {
				t.Error("the old secret still verifies after the overlap")
			}
		})
	}
}
