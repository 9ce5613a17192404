package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/mcpserver"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/segment"
)

// Function-field fakes of the backend's dependencies.
type authFunc func(ctx context.Context, key string) (apikey.Principal, error)

func (f authFunc) Authenticate(ctx context.Context, key string, _ apikey.Environment) (apikey.Principal, error) {
	return f(ctx, key)
}

type segmentsFunc func(ctx context.Context, ws string) ([]segment.Segment, error)

func (f segmentsFunc) List(ctx context.Context, ws string) ([]segment.Segment, error) {
	return f(ctx, ws)
}

type sendersFunc func(ctx context.Context, ws string) (identity.SenderList, error)

func (f sendersFunc) Sendable(ctx context.Context, ws string) (identity.SenderList, error) {
	return f(ctx, ws)
}

const (
	workspace = "0190b7a0-0000-7000-8000-0000000000aa"
	token     = "ps_oat_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
)

// routeStubs serves every tool route with an empty object.
func routeStubs() []httpapi.Route {
	var out []httpapi.Route
	for _, rt := range mcpserver.ToolRoutes() {
		out = append(out, httpapi.Route{Route: rt, Handler: func(w http.ResponseWriter, _ *http.Request) error {
			httpapi.WriteJSON(w, http.StatusOK, map[string]any{})
			return nil
		}})
	}
	return out
}

// session serves b and connects the official Go SDK client with token.
func session(t *testing.T, b mcpserver.Backend) *mcp.ClientSession {
	t.Helper()
	b.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	h, err := mcpserver.New(b)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	client := mcp.NewClient(&mcp.Implementation{Name: "unit", Version: "1"}, nil)
	sess, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{
		Endpoint: srv.URL, HTTPClient: &http.Client{Transport: bearer{}}, DisableStandaloneSSE: true, MaxRetries: -1,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	return sess
}

type bearer struct{}

func (bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+token)
	return http.DefaultTransport.RoundTrip(r)
}

// scoped authenticates the token as a principal of workspace with scopes.
func scoped(scopes ...apikey.Scope) authFunc {
	return func(_ context.Context, key string) (apikey.Principal, error) {
		if key != token {
			return apikey.Principal{}, apikey.ErrUnknownKey
		}
		return apikey.Principal{WorkspaceID: workspace, Scopes: scopes}, nil
	}
}

func TestNewNeedsEveryToolRoute(t *testing.T) {
	all := routeStubs()
	for i, missing := range all {
		b := mcpserver.Backend{Auth: scoped(), Routes: append(append([]httpapi.Route(nil), all[:i]...), all[i+1:]...)}
		if _, err := mcpserver.New(b); err == nil || !strings.Contains(err.Error(), missing.Path) {
			t.Errorf("without %s %s: err %v, want one naming it", missing.Method, missing.Path, err)
		}
	}
	if routes := mcpserver.ToolRoutes(); len(routes) < 12 {
		t.Errorf("ToolRoutes = %d routes, want every tool's and the domains resource's", len(routes))
	}
}

// The tools no route serves go through the API core as a route does: the
// scope is checked before the service is called, the caller's workspace
// is the one read, a rule's error keeps its code and a store fault is
// service_unavailable without its detail.
func TestListSegments(t *testing.T) {
	created := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	filter, err := segment.Parse(json.RawMessage(`{"all":[{"field":"tags","op":"has_tag","value":"vip"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	vips := segment.Segment{ID: "0190b7a0-0000-7000-8000-0000000000b1", Name: "VIPs", Filter: filter, ContactCount: 2, CreatedAt: created}
	cases := map[string]struct {
		scopes   []apikey.Scope
		answer   error
		wantCode string
		wantText string
		called   bool
	}{
		"listed":        {scopes: []apikey.Scope{apikey.SegmentsRead}, called: true, wantText: `"name":"VIPs","filter":{"all":[{"field":"tags","op":"has_tag","value":"vip"}]},"contact_count":2,"created_at":"2026-01-02T03:04:05.000Z"`},
		"no scope":      {scopes: []apikey.Scope{apikey.EmailsRead}, wantCode: "insufficient_scope", wantText: "segments:read"},
		"a store fault": {scopes: []apikey.Scope{apikey.SegmentsRead}, called: true, answer: storeFault(), wantCode: "service_unavailable", wantText: "retry shortly"},
		"a rule":        {scopes: []apikey.Scope{apikey.SegmentsRead}, called: true, answer: fail.NotFound("workspace"), wantCode: "not_found", wantText: "workspace not found"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			called := false
			sess := session(t, mcpserver.Backend{Auth: scoped(c.scopes...), Routes: routeStubs(),
				Segments: segmentsFunc(func(_ context.Context, ws string) ([]segment.Segment, error) {
					called = true
					if ws != workspace {
						t.Errorf("listed workspace %q, want the token's", ws)
					}
					return []segment.Segment{vips}, c.answer
				})})
			res, err := sess.CallTool(t.Context(), &mcp.CallToolParams{Name: "list_segments"})
			if err != nil {
				t.Fatalf("transport error %v", err)
			}
			if called != c.called {
				t.Errorf("service called: %v, want %v", called, c.called)
			}
			text := res.Content[0].(*mcp.TextContent).Text
			if !strings.Contains(text, c.wantText) || strings.Contains(text, "dynamo") {
				t.Errorf("answer %s, want %q in it and no internal detail", text, c.wantText)
			}
			var e struct{ Code string }
			json.Unmarshal([]byte(text), &e)
			if res.IsError != (c.wantCode != "") || e.Code != c.wantCode {
				t.Errorf("isError %v code %q, want %q", res.IsError, e.Code, c.wantCode)
			}
		})
	}
}

func storeFault() error {
	e := fail.Unavailable(2*time.Second, "the data store did not answer; retry shortly")
	e.Err = errors.New("dynamo: connection reset")
	return e
}

// The senders resource: each sender's From as a send takes it, the
// default marked; without domains:read a read error naming the code.
func TestSendersResource(t *testing.T) {
	list := identity.SenderList{Senders: []identity.Sender{
		{ID: "s1", Name: "Acme", Email: "hello@acme.example", ReplyTo: []string{"help@acme.example"}},
		{ID: "s2", Email: "news@acme.example"},
	}, DefaultID: "s1"}
	senders := sendersFunc(func(context.Context, string) (identity.SenderList, error) { return list, nil })
	sess := session(t, mcpserver.Backend{Auth: scoped(apikey.DomainsRead), Routes: routeStubs(), Senders: senders})
	res, err := sess.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "sesame://senders"})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"data":[{"id":"s1","from":"\"Acme\" <hello@acme.example>","name":"Acme","email":"hello@acme.example","reply_to":["help@acme.example"],"default":true},` +
		`{"id":"s2","from":"news@acme.example","name":"","email":"news@acme.example","reply_to":[],"default":false}]}`
	if got := strings.TrimSpace(res.Contents[0].Text); got != want {
		t.Errorf("senders =\n%s\nwant\n%s", got, want)
	}

	sess = session(t, mcpserver.Backend{Auth: scoped(apikey.EmailsRead), Routes: routeStubs(), Senders: senders})
	if _, err := sess.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "sesame://senders"}); err == nil || !strings.Contains(err.Error(), "insufficient_scope") {
		t.Errorf("without domains:read: %v", err)
	}
}

// A route's answer is the tool's: the route sees the caller's token and
// the tool's arguments as the API would.
func TestToolCallsItsRoute(t *testing.T) {
	var seen *http.Request
	stubs := routeStubs()
	for i := range stubs {
		if stubs[i].Route == routes.GetEmail {
			stubs[i].Handler = func(w http.ResponseWriter, r *http.Request) error {
				seen = r
				return fail.NotFound("email")
			}
		}
	}
	sess := session(t, mcpserver.Backend{Auth: scoped(apikey.EmailsRead), Routes: stubs})
	res, err := sess.CallTool(t.Context(), &mcp.CallToolParams{Name: "get_email", Arguments: map[string]any{"id": "abc"}})
	if err != nil {
		t.Fatal(err)
	}
	if seen == nil || seen.PathValue("id") != "abc" || httpapi.PrincipalFrom(seen.Context()).WorkspaceID != workspace {
		t.Fatalf("the route saw %v", seen)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; !res.IsError || !strings.Contains(text, `"code":"not_found"`) {
		t.Errorf("get_email of an absent email: %s", text)
	}
}
