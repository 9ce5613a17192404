package httpapi_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/routes"
)

var publicDoc = routes.Route{Method: "GET", Path: "/api/v1/doc", Public: true}

// A public route answers without a key, whatever the key store says, and
// still runs through the core: request id, envelope for its errors, 405.
func TestPublicRoute(t *testing.T) {
	var sawPrincipal apikey.Principal
	fail := false
	h := (&httpapi.Server{Auth: store(), Logger: discardLogger()}).Handler(append(testRoutes(), httpapi.Route{
		Route: publicDoc,
		Handler: func(w http.ResponseWriter, r *http.Request) error {
			if fail {
				return errors.New(handlerFault)
			}
			sawPrincipal = httpapi.PrincipalFrom(r.Context())
			httpapi.WriteJSON(w, http.StatusOK, httpapi.Data[string]{Data: "doc"})
			return nil
		},
	})...)
	for name, rq := range map[string]request{
		"no key":                  {target: "/api/v1/doc"},
		"malformed key":           {target: "/api/v1/doc", authz: "Basic x"},
		"key the store rejects":   {target: "/api/v1/doc", key: keyRevoked},
		"key store down":          {target: "/api/v1/doc", key: keyDown},
		"key over its rate limit": {target: "/api/v1/doc", key: keyLimited},
	} {
		t.Run(name, func(t *testing.T) {
			rec := serve(h, rq)
			if rec.Code != http.StatusOK || rec.Header().Get("X-Request-Id") == "" {
				t.Fatalf("status %d, X-Request-Id %q; body %s", rec.Code, rec.Header().Get("X-Request-Id"), rec.Body)
			}
			if got := decodeData[string](t, rec); got != "doc" {
				t.Errorf("data = %q", got)
			}
			if sawPrincipal.WorkspaceID != "" {
				t.Errorf("a public handler saw workspace %q", sawPrincipal.WorkspaceID)
			}
		})
	}
	// The other routes still need their key.
	checkError(t, serve(h, request{target: "/api/v1/things/th_1"}), 401, "unauthorized", "")
	checkError(t, serve(h, request{method: "POST", target: "/api/v1/doc"}), 405, "method_not_allowed", "")
	fail = true
	rec := serve(h, request{target: "/api/v1/doc"})
	checkError(t, rec, 500, "internal_error", "")
	if strings.Contains(rec.Body.String(), handlerFault) {
		t.Errorf("body leaks the handler's error: %s", rec.Body)
	}
}
