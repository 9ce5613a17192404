package httpapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/routes"
)

// fakeAuth is an httpapi.Authenticator made of a function field.
type fakeAuth struct {
	AuthenticateFn func(ctx context.Context, key string, env apikey.Environment) (apikey.Principal, error)
}

func (f *fakeAuth) Authenticate(ctx context.Context, key string, env apikey.Environment) (apikey.Principal, error) {
	return f.AuthenticateFn(ctx, key, env)
}

// Well-formed keys the fake store knows, one per behaviour.
var (
	keyLegacy  = apikey.Generate(apikey.Live) // created before scopes: Scopes nil
	keyRead    = apikey.Generate(apikey.Live) // emails:read only, workspace ws_read
	keyOther   = apikey.Generate(apikey.Test) // emails:read only, workspace ws_other
	keyRevoked = apikey.Generate(apikey.Live) // the store says ErrUnknownKey
	keyLimited = apikey.Generate(apikey.Live) // over its rate limit
	keyDown    = apikey.Generate(apikey.Live) // the key store fails
)

// fixtureKey is the key in testdata/apigw-v1-get-thing.json; workspace ws_gw.
const fixtureKey = "ps_test_kY9pF34Qy6nB3Wwd25rq4f5zr3QA7YeEEBY3ABp3"

// Text of internal faults; it must never reach a response body.
const (
	storeFault   = "dynamo down: table sesame-prod in eu-west-1 throttled"
	panicText    = "nil map write in thing handler, secret internal detail"
	handlerFault = "query failed: password=hunter2"
)

// store answers like the key store would for the keys above.
func store() *fakeAuth {
	return &fakeAuth{AuthenticateFn: func(_ context.Context, key string, env apikey.Environment) (apikey.Principal, error) {
		switch key {
		case keyLegacy:
			return apikey.Principal{WorkspaceID: "ws_legacy", KeyID: "key_legacy", Environment: env}, nil
		case keyRead:
			return apikey.Principal{WorkspaceID: "ws_read", KeyID: "key_read", Environment: env, Scopes: []apikey.Scope{apikey.EmailsRead}}, nil
		case keyOther:
			return apikey.Principal{WorkspaceID: "ws_other", KeyID: "key_other", Environment: env, Scopes: []apikey.Scope{apikey.EmailsRead}}, nil
		case fixtureKey:
			return apikey.Principal{WorkspaceID: "ws_gw", KeyID: "key_gw", Environment: env}, nil
		case keyLimited:
			return apikey.Principal{}, &apikey.RateLimitedError{RetryAfter: 1500 * time.Millisecond}
		case keyDown:
			return apikey.Principal{}, errors.New(storeFault)
		}
		return apikey.Principal{}, apikey.ErrUnknownKey
	}}
}

// thingInput is what the POST test route decodes.
type thingInput struct {
	To    string   `json:"to"`
	Count int      `json:"count"`
	Tags  []string `json:"tags"`
}

// thing is what the GET test route answers.
type thing struct {
	ID          string `json:"id"`
	WorkspaceID string `json:"workspace_id"`
	RequestID   string `json:"request_id"` // as the handler saw it
}

// page is what the list test route answers.
type page struct {
	Limit int    `json:"limit"`
	After string `json:"after"`
}

var (
	getThing    = routes.Route{Method: "GET", Path: "/api/v1/things/{id}", Scope: apikey.EmailsRead}
	listThings  = routes.Route{Method: "GET", Path: "/api/v1/things", Scope: apikey.EmailsRead}
	createThing = routes.Route{Method: "POST", Path: "/api/v1/things", Scope: apikey.EmailSend}
	panicking   = routes.Route{Method: "GET", Path: "/api/v1/panic", Scope: apikey.EmailsRead}
	failing     = routes.Route{Method: "GET", Path: "/api/v1/fail", Scope: apikey.EmailsRead}
)

var testCursors = httpapi.NewCursors([]byte("test cursor secret"))

// thingsBinding binds list cursors to the caller's workspace.
func thingsBinding(r *http.Request) string {
	return "things:" + httpapi.PrincipalFrom(r.Context()).WorkspaceID
}

// testRoutes are the routes every server test serves.
func testRoutes() []httpapi.Route {
	return []httpapi.Route{
		{Route: getThing, Handler: func(w http.ResponseWriter, r *http.Request) error {
			p := httpapi.PrincipalFrom(r.Context())
			httpapi.WriteJSON(w, http.StatusOK, httpapi.Data[thing]{Data: thing{ID: r.PathValue("id"), WorkspaceID: p.WorkspaceID, RequestID: httpapi.RequestID(r.Context())}})
			return nil
		}},
		{Route: listThings, Handler: func(w http.ResponseWriter, r *http.Request) error {
			pg, err := testCursors.ParsePage(r, thingsBinding(r))
			if err != nil {
				return err
			}
			httpapi.WriteJSON(w, http.StatusOK, httpapi.Data[page]{Data: page{Limit: pg.Limit, After: pg.After}})
			return nil
		}},
		{Route: createThing, Handler: func(w http.ResponseWriter, r *http.Request) error {
			var in thingInput
			if err := httpapi.DecodeJSON(r, &in); err != nil {
				return err
			}
			if in.To == "" {
				return fail.Missing("to")
			}
			httpapi.WriteJSON(w, http.StatusCreated, httpapi.Data[thingInput]{Data: in})
			return nil
		}},
		{Route: panicking, Handler: func(w http.ResponseWriter, r *http.Request) error {
			panic(panicText)
		}},
		{Route: failing, Handler: func(w http.ResponseWriter, r *http.Request) error {
			return fmt.Errorf("list things: %w", errors.New(handlerFault))
		}},
	}
}

// discardLogger keeps test output quiet.
func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// newHandler is the API core over testRoutes with the fake key store.
func newHandler() http.Handler {
	return (&httpapi.Server{Auth: store(), Logger: discardLogger()}).Handler(testRoutes()...)
}

// request describes one test request.
type request struct {
	method      string
	target      string
	key         string // sent as "Authorization: Bearer <key>" when set
	authz       string // raw Authorization header, when set
	contentType string
	body        string
}

func (rq request) build() *http.Request {
	method := rq.method
	if method == "" {
		method = http.MethodGet
	}
	r := httptest.NewRequest(method, rq.target, strings.NewReader(rq.body))
	switch {
	case rq.authz != "":
		r.Header.Set("Authorization", rq.authz)
	case rq.key != "":
		r.Header.Set("Authorization", "Bearer "+rq.key)
	}
	if rq.contentType != "" {
		r.Header.Set("Content-Type", rq.contentType)
	}
	return r
}

func serve(h http.Handler, rq request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, rq.build())
	return rec
}

// apiError is the decoded error envelope.
type apiError struct {
	Code      string
	Message   string
	Param     *string
	RequestID string
}

// decodeEnvelope checks that body is exactly
// {"error":{"code","message","param","request_id"}} and decodes it.
func decodeEnvelope(t *testing.T, body []byte) apiError {
	t.Helper()
	var outer map[string]json.RawMessage
	if err := json.Unmarshal(body, &outer); err != nil {
		t.Fatalf("error body is not a JSON object: %v; body %s", err, body)
	}
	if len(outer) != 1 || outer["error"] == nil {
		t.Fatalf("error body keys = %v, want exactly [error]; body %s", keys(outer), body)
	}
	var inner map[string]json.RawMessage
	if err := json.Unmarshal(outer["error"], &inner); err != nil {
		t.Fatalf("error member is not an object: %v; body %s", err, body)
	}
	if got, want := keys(inner), []string{"code", "message", "param", "request_id"}; !slices.Equal(got, want) {
		t.Fatalf("error keys = %v, want %v; body %s", got, want, body)
	}
	var e apiError
	for name, dst := range map[string]any{"code": &e.Code, "message": &e.Message, "param": &e.Param, "request_id": &e.RequestID} {
		if err := json.Unmarshal(inner[name], dst); err != nil {
			t.Fatalf("error.%s: %v; body %s", name, err, body)
		}
	}
	if e.Code == "" || e.Message == "" || e.RequestID == "" {
		t.Fatalf("error has an empty code, message or request_id: %s", body)
	}
	return e
}

func keys(m map[string]json.RawMessage) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// checkError asserts rec is the error envelope with status, code and param
// ("" for a null param), its request_id equal to X-Request-Id.
func checkError(t *testing.T, rec *httptest.ResponseRecorder, status int, code, param string) apiError {
	t.Helper()
	if rec.Code != status {
		t.Fatalf("status = %d, want %d; body %s", rec.Code, status, rec.Body)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q, want application/json", ct)
	}
	id := rec.Header().Get("X-Request-Id")
	if id == "" {
		t.Fatal("no X-Request-Id header")
	}
	e := decodeEnvelope(t, rec.Body.Bytes())
	if e.Code != code {
		t.Errorf("code = %q, want %q (message %q)", e.Code, code, e.Message)
	}
	if e.RequestID != id {
		t.Errorf("request_id = %q, X-Request-Id = %q: want them equal", e.RequestID, id)
	}
	switch {
	case param == "" && e.Param != nil:
		t.Errorf("param = %q, want null", *e.Param)
	case param != "" && e.Param == nil:
		t.Errorf("param = null, want %q", param)
	case param != "" && *e.Param != param:
		t.Errorf("param = %q, want %q", *e.Param, param)
	}
	return e
}

// decodeData decodes a {"data": …} success body.
func decodeData[T any](t *testing.T, rec *httptest.ResponseRecorder) T {
	t.Helper()
	var out httpapi.Data[T]
	dec := json.NewDecoder(rec.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&out); err != nil {
		t.Fatalf("success body: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		t.Fatalf("success body has trailing data")
	}
	return out.Data
}
