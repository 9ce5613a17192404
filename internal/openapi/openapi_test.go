package openapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/sethvargo/go-envconfig"

	apiopenapi "github.com/sesame-mail/sesame/internal/api/openapi"
	"github.com/sesame-mail/sesame/internal/api/wire"
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

// Every route of internal/routes (the API and the pages) is in the document with the scope it
// needs (none for a public route), and the document has no operation that
// no route serves.
func TestDocumentMatchesRoutes(t *testing.T) {
	doc, err := openapitest.Document()
	if err != nil {
		t.Fatal(err)
	}
	served := map[string]routes.Route{}
	for _, r := range routes.All() {
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
	// What get-openapi runs, with nothing in its environment: no table, no
	// key store, no AWS configuration; a public route never asks them.
	h, err := apiopenapi.OpenAPI.Handler(context.Background(), envconfig.MapLookuper(nil))
	if err != nil {
		t.Fatal(err)
	}
	res, err := h.(wire.RouteHandler)(t.Context(), ev)
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

// The document's error codes are exactly those the service (the httpapi
// code table) and API Gateway (the stack's gateway responses) can answer,
// and each is described with the status httpapi gives it.
func TestErrorCodesMatchTheCode(t *testing.T) {
	doc, err := openapitest.Document()
	if err != nil {
		t.Fatal(err)
	}
	schema := doc.Components.Schemas["ErrorCode"].Value
	var documented []string
	for _, v := range schema.Enum {
		documented = append(documented, v.(string))
	}
	service := stringsIn(t, filepath.Join("..", "httpapi", "errors.go"), func(n ast.Node) (ast.Expr, bool) {
		// const CodeX Code = "x"
		vs, ok := n.(*ast.ValueSpec)
		if !ok || len(vs.Values) != 1 {
			return nil, false
		}
		if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "Code" {
			return nil, false
		}
		return vs.Values[0], true
	})
	gateway := stringsIn(t, filepath.Join("..", "..", "infra", "api.go"), func(n ast.Node) (ast.Expr, bool) {
		// gatewayError{…, code: "x", …}
		kv, ok := n.(*ast.KeyValueExpr)
		if !ok {
			return nil, false
		}
		if id, ok := kv.Key.(*ast.Ident); !ok || id.Name != "code" {
			return nil, false
		}
		return kv.Value, true
	})
	if len(service) < 10 || len(gateway) < 3 {
		t.Fatalf("found %d service codes and %d gateway codes: the source scan is broken", len(service), len(gateway))
	}
	produced := append(slices.Clone(service), gateway...)
	slices.Sort(produced)
	produced = slices.Compact(produced)
	slices.Sort(documented)
	if !slices.Equal(documented, produced) {
		t.Errorf("documented error codes %v, want the codes the service and the gateway answer: %v", documented, produced)
	}
	for _, code := range service {
		want := fmt.Sprintf("- `%s`: %d", code, httpapi.Code(code).Status())
		if !strings.Contains(schema.Description, want) {
			t.Errorf("ErrorCode's description should list %q (httpapi's status for it)", want)
		}
	}
}

// stringsIn returns the string literals pick finds in the Go file at path.
func stringsIn(t *testing.T, path string, pick func(ast.Node) (ast.Expr, bool)) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		if e, ok := pick(n); ok {
			lit, isLit := e.(*ast.BasicLit)
			if !isLit || lit.Kind != token.STRING {
				return true
			}
			v, err := strconv.Unquote(lit.Value)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, v)
		}
		return true
	})
	return out
}

// No object of the document names a key twice: parsers keep one copy or the
// other (Go's the last), and Redocly and openapi-typescript refuse it.
func TestDocumentHasNoDuplicateKeys(t *testing.T) {
	if err := openapitest.DuplicateKeys(openapi.Document); err != nil {
		t.Fatal(err)
	}
}
