package devstack_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/apikey"
)

// storeCall is a request whose route makes DynamoDB call op after the
// key check.
type storeCall struct {
	op   string
	call func(e *env, key string) response
}

// storeCalls are a read, a list and the send route, each by the call it
// makes first after the key check.
func storeCalls() map[string]storeCall {
	return map[string]storeCall{
		"list emails": {"Query", func(e *env, key string) response { return e.get(bearer(key), "/api/v1/emails") }},
		"get email": {"GetItem", func(e *env, key string) response {
			return e.get(bearer(key), "/api/v1/emails/01a20b29-2fe6-710b-9a09-e0df3df5c4c1")
		}},
		"send": {"BatchGetItem", func(e *env, key string) response {
			return e.post(key, "/api/v1/send", map[string]any{"to": "ann@example.org", "subject": "Hi", "html": "<p>Hi</p>"})
		}},
	}
}

// A store fault after the key check, on a read or on the send path, is
// 503 service_unavailable with Retry-After, its detail only in the log.
func TestStoreFaultAfterKeyCheckIs503(t *testing.T) {
	cases := storeCalls()
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			e := startDev(t)
			_, key := e.workspace(apikey.Test)
			e.rec.Fail = func(op string) error {
				if op == tc.op {
					return errors.New("connection reset by dynamodb")
				}
				return nil
			}
			r := tc.call(e, key)
			r.wantError(t, http.StatusServiceUnavailable, "service_unavailable", "")
			if got := r.header.Get("Retry-After"); got != "2" {
				t.Errorf("Retry-After = %q, want 2", got)
			}
			if strings.Contains(string(r.body), "connection reset") {
				t.Errorf("internal error text leaked: %s", r.body)
			}
		})
	}
}
