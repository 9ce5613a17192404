package devstack_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sesv2"
	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/api/wire"
	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/config"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/emulatortest"
	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/ses"
)

// shortBounds end a stalled call quickly, as the defaults would in
// seconds.
var shortBounds = config.SDK{ConnectTimeout: 100 * time.Millisecond, AttemptTimeout: 100 * time.Millisecond, CallTimeout: 300 * time.Millisecond, SESCallTimeout: 300 * time.Millisecond}

// A DynamoDB that hangs (accepts connections, never answers) is a store
// fault the route answers in time: 503 service_unavailable with
// Retry-After, whether the key check or the route's own call stalls.
func TestStalledStoreIs503(t *testing.T) {
	cases := storeCalls()
	// "" stalls every call, the key check's too.
	cases["key check"] = storeCall{"", func(e *env, key string) response { return e.get(bearer(key), "/api/v1/emails") }}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := startDev(t)
			_, key := e.workspace(apikey.Test)
			stalled := emulatortest.NewStalled(t)
			hung := dynamodb.NewFromConfig(wire.Bound(stalled.Config(), shortBounds))
			e.rec.Via = func(op string) dynamo.DB {
				if tc.op == "" || op == tc.op {
					return hung
				}
				return nil
			}
			r := tc.call(e, key)
			r.wantError(t, http.StatusServiceUnavailable, "service_unavailable", "")
			if got := r.header.Get("Retry-After"); got != "2" {
				t.Errorf("Retry-After = %q, want 2", got)
			}
			if stalled.AcceptedAtLeast(1) == 0 {
				t.Error("no call reached the stalled endpoint")
			}
		})
	}
}

// An SES that hangs on the send path is 503 with Retry-After too; nothing
// is left behind, so the same Idempotency-Key sends once SES answers.
func TestStalledSESIs503(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	s := newSendWS(t, e, defaultSender())
	stalled := emulatortest.NewStalled(t)
	hung := &ses.Client{API: sesv2.NewFromConfig(wire.Bound(stalled.Config(), shortBounds))}
	url := e.withService(t, func(svc *sending.Service) { svc.Transport = hung })
	req, idem := msg("stalled-ses", nil), uuid.NewString()
	r := e.postTo(t, url, s.key, "/api/v1/send", req, "Idempotency-Key", idem)
	r.wantError(t, http.StatusServiceUnavailable, "service_unavailable", "")
	if got := r.header.Get("Retry-After"); got == "" {
		t.Error("no Retry-After")
	}
	if stalled.AcceptedAtLeast(1) == 0 {
		t.Error("no call reached the stalled endpoint")
	}
	e.post(s.key, "/api/v1/send", req, "Idempotency-Key", idem).sent(t, http.StatusOK).want(t, true, "sent")
}
