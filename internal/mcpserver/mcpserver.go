// Package mcpserver is Sesame's remote MCP server (streamable HTTP, on the
// official Go SDK), for an assistant the owner connected by OAuth. Each
// tool is one /api/v1 route called in-process with the caller's token:
// the same handler, services, scope, rate limit, workspace isolation and
// errors as the API (docs/decisions.md). The few tools no route serves
// call their entity's service through the same API core (own.go). A
// route's error comes back as a tool error carrying the API's code,
// message and param. Stateless: every HTTP request stands alone, as Lambda
// invocations do.
package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/routes"
)

// Backend is what the tools call, behind the API's authentication: the
// /api/v1 routes (Routes holds every tool's route; ToolRoutes names them)
// and the services of the tools and resources no route serves.
type Backend struct {
	Auth   httpapi.Authenticator
	Logger *slog.Logger
	Routes []httpapi.Route
	// Segments and Senders serve list_segments and sesame://senders.
	Segments SegmentLister
	Senders  SenderLister
}

// ToolRoutes are the /api/v1 routes the tools and resources call: what a
// Backend's Routes must serve.
func ToolRoutes() []routes.Route {
	var out []routes.Route
	add := func(rt routes.Route) {
		if !slices.Contains(out, rt) && !slices.Contains(ownRoutes, rt) {
			out = append(out, rt)
		}
	}
	for _, t := range tools {
		add(t.route)
	}
	for _, r := range resources {
		add(r.route)
	}
	add(draftTool.route)
	return out
}

// New is the MCP endpoint over b: the API's authentication first (a
// missing, unknown or expired token is answered 401 with the
// WWW-Authenticate challenge an MCP client starts its OAuth flow from),
// then the SDK's streamable HTTP handler, whose tools call b's routes
// in-process through the API core, as a request to /api/v1 would.
func New(b Backend) (http.Handler, error) {
	schemas, err := toolSchemas()
	if err != nil {
		return nil, err
	}
	served := b.own()
	for _, want := range ToolRoutes() {
		i := slices.IndexFunc(b.Routes, func(rt httpapi.Route) bool { return rt.Route == want })
		if i < 0 {
			return nil, fmt.Errorf("mcp: route %s %s has no handler", want.Method, want.Path)
		}
		served = append(served, b.Routes[i])
	}
	core := &httpapi.Server{Auth: b.Auth, Logger: b.Logger}
	api := core.Handler(served...)
	srv := mcp.NewServer(&mcp.Implementation{Name: "sesame", Title: "Sesame email", Version: "1"}, &mcp.ServerOptions{
		Instructions: "Sesame sends transactional email for this workspace. Tools need the scopes the owner approved; " +
			"a tool without its scope answers insufficient_scope. Campaigns are never sent by an assistant: draft_campaign only suggests one to the owner.",
	})
	for _, t := range tools {
		schema, ok := schemas[t.name]
		if !ok {
			return nil, fmt.Errorf("mcp: tool %s has no schema in toolschemas.json (TestToolSchemasAreCurrent -update)", t.name)
		}
		srv.AddTool(&mcp.Tool{
			Name: t.name, Title: t.title, Description: t.description, InputSchema: schema,
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: t.readOnly, IdempotentHint: t.readOnly},
		}, callRoute(api, t))
	}
	addDraftTool(srv, api)
	for _, r := range resources {
		srv.AddResource(&mcp.Resource{
			URI: r.uri, Name: r.name, Title: r.title, MIMEType: "application/json", Description: r.description,
		}, readRoute(api, r))
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		Stateless: true, JSONResponse: true,
	})
	return core.Guard(h), nil
}

// resource is an MCP resource served by one GET route.
type resource struct {
	uri, name, title, description string
	route                         routes.Route
}

// resources are the agent's resources.
var resources = []resource{
	{uri: "sesame://domains", name: "domains", title: "Sending domains", route: routes.Domains,
		description: "The workspace's sending domains and their verification (GET /api/v1/domains). Needs domains:read."},
	{uri: "sesame://senders", name: "senders", title: "Senders", route: sendersRoute,
		description: "The From addresses this workspace may send from now (on a verified domain), the default marked. Needs domains:read."},
}

// toolError is a route's error as a tool error's structured content.
type toolError struct {
	Code    string  `json:"code"`
	Message string  `json:"message"`
	Param   *string `json:"param"`
}

type envelope struct {
	Error *toolError `json:"error"`
}

// callRoute serves tool t by its route.
func callRoute(api http.Handler, t tool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		r, err := t.request(ctx, req.Params.Arguments, authorization(req.Extra))
		if err != nil {
			return errorResult(toolError{Code: "invalid_field", Message: err.Error()}), nil
		}
		status, body := serve(api, r)
		return result(status, body), nil
	}
}

// readRoute serves resource r by its GET route; a route's error is the
// read's error, with the API's code and message.
func readRoute(api http.Handler, r resource) mcp.ResourceHandler {
	return func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		hr, err := http.NewRequestWithContext(ctx, http.MethodGet, r.route.Path, nil)
		if err != nil {
			return nil, err
		}
		hr.Header.Set("Authorization", authorization(req.Extra))
		status, body := serve(api, hr)
		if status != http.StatusOK {
			var e envelope
			if json.Unmarshal(body, &e) == nil && e.Error != nil {
				return nil, fmt.Errorf("%s: %s", e.Error.Code, e.Error.Message)
			}
			return nil, fmt.Errorf("the %s could not be read (%d)", r.name, status)
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.uri, MIMEType: "application/json", Text: string(body)}}}, nil
	}
}

func authorization(extra *mcp.RequestExtra) string {
	if extra == nil {
		return ""
	}
	return extra.Header.Get("Authorization")
}

// request is the API request of a call to t with args: path and query
// arguments in the URL, idempotency_key as its header, the rest the body.
func (t tool) request(ctx context.Context, raw json.RawMessage, auth string) (*http.Request, error) {
	args := map[string]json.RawMessage{}
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &args); err != nil {
			return nil, fmt.Errorf("the arguments must be a JSON object")
		}
	}
	path := t.route.Path
	for _, name := range t.path {
		var v string
		if err := json.Unmarshal(args[name], &v); err != nil || v == "" {
			return nil, fmt.Errorf("%s is required, a string", name)
		}
		path = strings.Replace(path, "{"+name+"}", url.PathEscape(v), 1)
		delete(args, name)
	}
	q := url.Values{}
	for _, name := range t.query {
		v, ok := args[name]
		if !ok {
			continue
		}
		var s string
		if json.Unmarshal(v, &s) != nil {
			s = string(v) // a number or boolean, as the query writes it
		}
		q.Set(name, s)
		delete(args, name)
	}
	var idem string
	if t.idempotent {
		if v, ok := args[idempotencyArg]; ok {
			if err := json.Unmarshal(v, &idem); err != nil {
				return nil, fmt.Errorf("%s must be a string", idempotencyArg)
			}
			delete(args, idempotencyArg)
		}
	}
	var body []byte
	if t.body != "" {
		var err error
		if body, err = json.Marshal(args); err != nil {
			return nil, err
		}
	} else if len(args) > 0 {
		names := make([]string, 0, len(args))
		for k := range args {
			names = append(names, k)
		}
		slices.Sort(names)
		return nil, fmt.Errorf("unknown argument %s", names[0])
	}
	u := path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	r, err := http.NewRequestWithContext(ctx, t.route.Method, u, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	r.Header.Set("Authorization", auth)
	if body != nil {
		r.Header.Set("Content-Type", "application/json")
	}
	if idem != "" {
		r.Header.Set("Idempotency-Key", idem)
	}
	return r, nil
}

// serve runs r through the API in-process.
func serve(api http.Handler, r *http.Request) (int, []byte) {
	rec := httptest.NewRecorder()
	api.ServeHTTP(rec, r)
	return rec.Code, rec.Body.Bytes()
}

// result is the tool result of the route's answer: its JSON as text and
// structured content, or a tool error with the API's code, message and
// param.
func result(status int, body []byte) *mcp.CallToolResult {
	if status >= 400 {
		var e envelope
		if json.Unmarshal(body, &e) != nil || e.Error == nil {
			return errorResult(toolError{Code: "internal_error", Message: fmt.Sprintf("the API answered %d", status)})
		}
		return errorResult(*e.Error)
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(body)}}}
	if trimmed := bytes.TrimSpace(body); len(trimmed) > 0 && trimmed[0] == '{' && json.Valid(trimmed) {
		res.StructuredContent = json.RawMessage(trimmed) // an object, as structured content must be
	}
	return res
}

func errorResult(e toolError) *mcp.CallToolResult {
	text, _ := json.Marshal(e)
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: string(text)}}, StructuredContent: e}
}
