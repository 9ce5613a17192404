package openapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/sesame-mail/sesame/internal/api"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/openapi"
	"github.com/sesame-mail/sesame/internal/openapi/openapitest"
	"github.com/sesame-mail/sesame/internal/routes"
)

// The document loads and is a valid OpenAPI 3.1 document.
func TestDocumentIsValid(t *testing.T) {
	doc, err := openapitest.Document()
	if err != nil {
		t.Fatal(err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Errorf("openapi = %q, want 3.1.0", doc.OpenAPI)
	}
	if len(doc.Webhooks) == 0 {
		t.Error("no webhooks section")
	}
}

// Every route of internal/routes is in the document with the scope it
// needs (none for a public route), and the document has no operation that
// no route serves.
func TestDocumentMatchesRoutes(t *testing.T) {
	doc, err := openapitest.Document()
	if err != nil {
		t.Fatal(err)
	}
	served := map[string]routes.Route{}
	for _, r := range routes.API {
		served[r.Method+" "+r.Path] = r
	}
	documented := map[string]bool{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			key := method + " " + path
			documented[key] = true
			r, ok := served[key]
			if !ok {
				t.Errorf("the document has %s, which no route in internal/routes serves", key)
				continue
			}
			if op.Security == nil {
				t.Errorf("%s: no security requirement of its own", key)
				continue
			}
			var scopes []string
			for _, req := range *op.Security {
				for _, s := range req {
					scopes = append(scopes, s...)
				}
			}
			switch {
			case r.Public && len(*op.Security) != 0:
				t.Errorf("%s is public, but the document asks for %v", key, *op.Security)
			case !r.Public && !slices.Equal(scopes, []string{string(r.Scope)}):
				t.Errorf("%s: the document asks for scopes %v, the route needs %s", key, scopes, r.Scope)
			}
		}
	}
	for key, r := range served {
		if !documented[key] {
			t.Errorf("route %s (functions/%s) is missing from the document", key, r.Function)
		}
		if r.Public != (r.Scope == "") {
			t.Errorf("route %s: Public %v with scope %q; a route is public exactly when it has no scope", key, r.Public, r.Scope)
		}
	}
}

// The Lambda function serves the document through API Gateway without an
// API key, as stored, with the gateway's request id.
func TestServedWithoutKey(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "events", "apigw", "get-openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ev events.APIGatewayProxyRequest
	if err := json.Unmarshal(raw, &ev); err != nil {
		t.Fatal(err)
	}
	if ev.Headers["Authorization"] != "" {
		t.Fatal("the fixture must carry no Authorization header")
	}
	// No key store at all: a public route never asks it.
	handle, err := api.LambdaHandler(api.Deps{Cursors: httpapi.Cursors{Secret: []byte("s")}}, routes.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	res, err := handle(context.Background(), ev)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK || res.Body != string(openapi.Document) {
		t.Fatalf("status %d, body %.200s", res.StatusCode, res.Body)
	}
	if got := res.MultiValueHeaders["Content-Type"]; !slices.Equal(got, []string{"application/json"}) {
		t.Errorf("Content-Type = %v", got)
	}
	if got := res.MultiValueHeaders["X-Request-Id"]; len(got) != 1 || got[0] != ev.RequestContext.RequestID {
		t.Errorf("X-Request-Id = %v, want the API Gateway request id %s", got, ev.RequestContext.RequestID)
	}
	if !json.Valid([]byte(res.Body)) {
		t.Error("the document is not JSON")
	}
}
