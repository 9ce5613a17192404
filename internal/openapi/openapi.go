// Package openapi holds the OpenAPI 3.1 document of /api/v1 and serves it
// at GET /api/v1/openapi.json. The document is the contract: every HTTP test
// of the dev stack validates its requests and responses against it
// (openapitest), so it cannot drift from what the handlers do.
package openapi

import (
	_ "embed"
	"net/http"

	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/routes"
)

// Document is the OpenAPI document, served as stored.
//
//go:embed openapi.json
var Document []byte

// Handlers serves the document.
type Handlers struct{}

// Routes returns the routes served by h.
func (h Handlers) Routes() []httpapi.Route {
	return []httpapi.Route{{Route: routes.OpenAPI, Handler: h.Get}}
}

// Get answers GET /api/v1/openapi.json, without an API key.
func (Handlers) Get(w http.ResponseWriter, _ *http.Request) error {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(Document) // the client may have gone; nothing to do
	return nil
}
