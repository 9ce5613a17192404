package devstack_test

import (
	"bytes"
	"net/http"
	"testing"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/openapi"
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
