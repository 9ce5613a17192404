package openapitest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
)

// keyHeader is an Authorization header with a well-formed Sesame key.
// keyHeader is a key, or a connection's OAuth access token.
var keyHeader = regexp.MustCompile(`^Bearer (ps_(live|test)_[0-9A-Za-z]{40}|ps_oat_[0-9A-Za-z_-]{43})$`)

// options are the settings of every check.
func options() *openapi3filter.Options {
	o := &openapi3filter.Options{
		// Every status a route answers must be documented for it.
		IncludeResponseStatus: true,
		// Validation must not change the request it looks at.
		SkipSettingDefaults: true,
		AuthenticationFunc: func(_ context.Context, in *openapi3filter.AuthenticationInput) error {
			if h := in.RequestValidationInput.Request.Header.Get("Authorization"); !keyHeader.MatchString(h) {
				return in.NewError(errors.New("the Authorization header is not Bearer and a ps_live_ or ps_test_ key or a ps_oat_ token"))
			}
			return nil
		},
		SchemaValidationOptions: []openapi3.SchemaValidationOption{
			// kin-openapi checks only dates and times by default.
			openapi3.WithStringFormatValidator("uuid", openapi3.NewRegexpFormatValidator(openapi3.FormatOfStringForUUIDOfRFC9562)),
		},
	}
	// Where and why, without the schema and value dumps.
	o.WithCustomSchemaErrorFunc(func(err *openapi3.SchemaError) string {
		return fmt.Sprintf("at /%s: %s", strings.Join(err.JSONPointer(), "/"), strings.ReplaceAll(err.Reason, "\n", " "))
	})
	return o
}

// Transport checks each request to a path under Prefixes against the
// document before sending it, and its response after, and reports every
// mismatch. Other requests pass through unchecked.
type Transport struct {
	// Base sends the requests; http.DefaultTransport when nil.
	Base http.RoundTripper
	// Report is told of each mismatch (t.Errorf).
	Report func(format string, args ...any)
	// BadInput marks a client whose requests are invalid on purpose (a
	// test of the API's refusals): only the responses are checked. A
	// response to a request the document has no operation for must then
	// be the error envelope.
	BadInput bool
}

// RoundTrip sends req through Base, checking it and its response.
func (tr *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := tr.Base
	if base == nil {
		base = http.DefaultTransport
	}
	if !slices.ContainsFunc(Prefixes, func(p string) bool { return strings.HasPrefix(req.URL.Path, p) }) {
		return base.RoundTrip(req)
	}
	doc, err := Document()
	if err != nil {
		tr.Report("%v", err)
		return base.RoundTrip(req)
	}
	var body []byte
	if req.Body != nil {
		body, err = io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
	}
	what := req.Method + " " + req.URL.RequestURI()

	// The router and the validator read their own copy; req goes out as is.
	check := withBody(req, body)
	route, params, findErr := router.FindRoute(check)
	in := &openapi3filter.RequestValidationInput{Request: check, PathParams: params, Route: route, Options: options()}
	switch {
	case tr.BadInput:
	case findErr != nil:
		tr.Report("openapi: %s: the document has no operation for it: %v", what, findErr)
	default:
		if err := openapi3filter.ValidateRequest(req.Context(), in); err != nil {
			tr.Report("openapi: request %s does not match the document: %s", what, short(err))
		}
	}

	res, err := base.RoundTrip(withBody(req, body))
	if err != nil {
		return nil, err
	}
	resBody, err := io.ReadAll(res.Body)
	res.Body.Close()
	res.Body = io.NopCloser(bytes.NewReader(resBody))
	if err != nil {
		return nil, err
	}
	if findErr != nil {
		if err := checkErrorResponse(doc, res, resBody); err != nil {
			tr.Report("openapi: %s answered %d: %v", what, res.StatusCode, err)
		}
		return res, nil
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: res.StatusCode, Header: res.Header, Options: in.Options}
	out.SetBodyBytes(resBody)
	if err := openapi3filter.ValidateResponse(req.Context(), out); err != nil {
		tr.Report("openapi: response %d to %s does not match the document: %s; body %.500s", res.StatusCode, what, short(err), resBody)
	}
	return res, nil
}

// withBody is a copy of req carrying body.
func withBody(req *http.Request, body []byte) *http.Request {
	c := req.Clone(req.Context())
	c.Body = io.NopCloser(bytes.NewReader(body))
	c.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	c.ContentLength = int64(len(body))
	if body == nil {
		c.Body, c.GetBody = http.NoBody, nil
	}
	return c
}

// checkErrorResponse checks an answer to a request no operation describes
// (an unknown route or method) against the document's error envelope.
func checkErrorResponse(doc *openapi3.T, res *http.Response, body []byte) error {
	if res.StatusCode < 400 {
		return errors.New("want an error status for a request the document does not describe")
	}
	if res.Header.Get("X-Request-Id") == "" {
		return errors.New("no X-Request-Id header")
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return fmt.Errorf("body is not JSON: %w", err)
	}
	if err := doc.Components.Schemas["Error"].Value.VisitJSON(v, openapi3.EnableJSONSchema2020()); err != nil {
		return fmt.Errorf("body is not the error envelope: %s", short(err))
	}
	return nil
}

// short keeps a validation error readable: the JSON Schema validator quotes
// whole values, and bodies here go up to 20 MB.
func short(err error) string {
	const max = 2000
	s := err.Error()
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
}
