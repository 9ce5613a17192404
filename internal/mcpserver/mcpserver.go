// Package mcpserver is Sesame's remote MCP server (streamable HTTP, on the
// official Go SDK), for an assistant the owner connected by OAuth. Each
// tool is one /api/v1 route called in-process with the caller's token:
// the same handler, services, scope, rate limit, workspace isolation and
// errors as the API (docs/decisions.md). A route's error comes back as a
// tool error carrying the API's code, message and param. Stateless: every
// HTTP request stands alone, as Lambda invocations do.
package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sesame-mail/sesame/internal/openapi"
)

// Guard authenticates an MCP request before the SDK reads it: a missing,
// unknown or expired token is answered 401 with the WWW-Authenticate
// challenge an MCP client starts its OAuth flow from (httpapi.Server's).
type Guard func(http.Handler) http.Handler

// New is the MCP endpoint: guard first, then the SDK's streamable HTTP
// handler, whose tools call api (the /api/v1 routes) in-process.
func New(api http.Handler, guard Guard) (http.Handler, error) {
	var doc document
	if err := json.Unmarshal(openapi.Document, &doc); err != nil {
		return nil, fmt.Errorf("mcp: read the API document: %w", err)
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "sesame", Title: "Sesame email", Version: "1"}, &mcp.ServerOptions{
		Instructions: "Sesame sends transactional email for this workspace. Tools need the scopes the owner approved; " +
			"a tool without its scope answers insufficient_scope. Campaigns are never sent by an assistant: draft_campaign only suggests one to the owner.",
	})
	for _, t := range tools {
		schema, err := doc.inputSchema(t)
		if err != nil {
			return nil, err
		}
		srv.AddTool(&mcp.Tool{
			Name: t.name, Title: t.title, Description: t.description, InputSchema: schema,
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: t.readOnly, IdempotentHint: t.readOnly},
		}, callRoute(api, t))
	}
	addDraftTool(srv, api)
	srv.AddResource(&mcp.Resource{
		URI: domainsURI, Name: "domains", Title: "Sending domains", MIMEType: "application/json",
		Description: "The workspace's sending domains and their verification (GET /api/v1/domains). Needs domains:read.",
	}, readDomains(api))
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		Stateless: true, JSONResponse: true,
	})
	return guard(h), nil
}

// domainsURI names the domains resource.
const domainsURI = "sesame://domains"

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

func readDomains(api http.Handler) mcp.ResourceHandler {
	return func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		r, err := http.NewRequestWithContext(ctx, http.MethodGet, "/api/v1/domains", nil)
		if err != nil {
			return nil, err
		}
		r.Header.Set("Authorization", authorization(req.Extra))
		status, body := serve(api, r)
		if status != http.StatusOK {
			var e envelope
			if json.Unmarshal(body, &e) == nil && e.Error != nil {
				return nil, fmt.Errorf("%s: %s", e.Error.Code, e.Error.Message)
			}
			return nil, fmt.Errorf("the domains could not be read (%d)", status)
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: domainsURI, MIMEType: "application/json", Text: string(body)}}}, nil
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
