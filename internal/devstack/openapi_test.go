package devstack_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/openapi"
	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/ses"
)

// The dev server serves the OpenAPI document without an API key, through
// the API core (X-Request-Id), and a key changes nothing.
func TestOpenAPIDocumentServedWithoutKey(t *testing.T) {
	e := startDev(t)
	_, key := e.workspace(apikey.Live, apikey.EmailsRead)
	for name, authz := range map[string]string{"no key": "", "a key": bearer(key)} {
		t.Run(name, func(t *testing.T) {
			r := e.get(authz, "/api/v1/openapi.json")
			if r.status != http.StatusOK || !bytes.Equal(r.body, openapi.Document) {
				t.Fatalf("status %d, body %.200s", r.status, r.body)
			}
			if ct := r.header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type = %q", ct)
			}
			if r.header.Get("X-Request-Id") == "" {
				t.Error("no X-Request-Id")
			}
		})
	}
	r, err := e.bad().do(e.url, "", http.MethodPost, "/api/v1/openapi.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	r.wantError(t, http.StatusMethodNotAllowed, "method_not_allowed", "")
}

// A batch item SES rejects answers as the document's sent-item shape with
// status failed: no error field (an item's "error" is the refusal object),
// the reason in message. The harness checks the shape.
func TestBatchItemRejectedBySES(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	s := newSendWS(t, e, defaultSender())
	rejected := msg("batchrejected", nil)
	e.ses.setFail(func(in sending.SendInput) error {
		if in.To == rejected["to"] {
			return &ses.RejectedError{Reason: "the message contains a virus", Code: "MessageRejected"}
		}
		return nil
	})
	items := e.post(s.key, "/api/v1/send/batch", map[string]any{"emails": []any{msg("batchok", nil), rejected}}).batch(t, 2)
	if items[0].Status != "sent" || items[0].Success == nil || !*items[0].Success {
		t.Errorf("item 0 = %+v, want sent", items[0])
	}
	it := items[1]
	if it.Status != "failed" || it.Success == nil || *it.Success || it.Error != nil || !strings.Contains(it.Message, "virus") {
		t.Errorf("item 1 = %+v, want failed, success false, the reason in message", it)
	}
	e.wantEmail(t, s.key, it.ID, "failed", "virus")
}
