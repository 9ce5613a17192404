// Package openapitest checks HTTP traffic against the OpenAPI document of
// internal/openapi: a RoundTripper for test clients that validates every
// /api/v1 request and response, and a check of webhook requests. Tests use
// it so that the document cannot drift from what the handlers do.
package openapitest

import (
	"context"
	"fmt"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/sesame-mail/sesame/internal/openapi"
)

// Prefixes are the path prefixes of the traffic a Transport checks: the
// API and the recipients' pages.
var Prefixes = []string{"/api/v1/", "/unsubscribe/"}

var (
	loadOnce sync.Once
	loaded   *openapi3.T
	router   routers.Router
	errLoad  error
)

// Document is the parsed document, checked valid (and free of duplicated
// keys) once per process. Callers
// must not change it.
func Document() (*openapi3.T, error) {
	loadOnce.Do(func() {
		ctx := context.Background()
		// The unsubscribe pages answer HTML, checked as text.
		openapi3filter.RegisterBodyDecoder("text/html", openapi3filter.PlainBodyDecoder)
		// A duplicated key would lose one of its copies here unnoticed.
		if err := DuplicateKeys(openapi.Document); err != nil {
			errLoad = fmt.Errorf("the OpenAPI document is invalid: %w", err)
			return
		}
		loader := openapi3.NewLoader()
		doc, err := loader.LoadFromData(openapi.Document)
		if err != nil {
			errLoad = fmt.Errorf("load the OpenAPI document: %w", err)
			return
		}
		if err := doc.Validate(ctx); err != nil {
			errLoad = fmt.Errorf("the OpenAPI document is invalid: %w", err)
			return
		}
		// Route by path alone: tests serve on whatever address they got.
		routing := *doc
		routing.Servers = nil
		if router, err = gorillamux.NewRouter(&routing); err != nil {
			errLoad = fmt.Errorf("route the OpenAPI document: %w", err)
			return
		}
		loaded = doc
	})
	return loaded, errLoad
}
