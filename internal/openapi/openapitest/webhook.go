package openapitest

import (
	"bytes"
	"context"
	"fmt"
	"net/http"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
)

// CheckWebhook checks a webhook request Sesame made against the document's
// webhooks section, the entry named by its X-Service-Event-Type header.
func CheckWebhook(header http.Header, body []byte) error {
	doc, err := Document()
	if err != nil {
		return err
	}
	name := header.Get("X-Service-Event-Type")
	item := doc.Webhooks[name]
	if item == nil || item.Post == nil {
		return fmt.Errorf("openapi: the document has no webhook %q", name)
	}
	req, err := http.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header = header.Clone()
	in := &openapi3filter.RequestValidationInput{
		Request: req, Options: options(),
		Route: &routers.Route{Spec: doc, Path: name, PathItem: item, Method: http.MethodPost, Operation: item.Post},
	}
	if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
		return fmt.Errorf("openapi: webhook %s does not match the document: %s", name, short(err))
	}
	return nil
}
