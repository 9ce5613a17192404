package devstack_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sesame-mail/sesame/internal/account"
)

// bearerTransport sends every request with the token, as an MCP client
// holding one does.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// mcpSession connects the official Go SDK client to the dev server's /mcp
// with token.
func (e *env) mcpSession(t *testing.T, token string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1"}, nil)
	sess, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{
		Endpoint: e.url + "/mcp", HTTPClient: &http.Client{Transport: bearerTransport{token}},
		DisableStandaloneSSE: true, MaxRetries: -1,
	}, nil)
	if err != nil {
		t.Fatalf("MCP connect: %v", err)
	}
	t.Cleanup(func() { sess.Close() })
	return sess
}

// sendingDash is a workspace ready to send, with an owner signed in.
func sendingDash(t *testing.T) (*dash, *sendWS, *http.Client) {
	t.Helper()
	e := startDev(t)
	s := newSendWS(t, e, defaultSender())
	address := "owner-" + uuid.NewString()[:8] + "@example.com"
	if _, err := (&account.Owners{Store: e.store.Owners}).Add(t.Context(), s.id, address); err != nil {
		t.Fatal(err)
	}
	d := &dash{env: e, ws: s.id, owner: address}
	c, _ := d.signIn(t, address)
	return d, s, c
}

// toolError is a tool error's structured content: the API's error.
type toolError struct {
	Code    string  `json:"code"`
	Message string  `json:"message"`
	Param   *string `json:"param"`
}

func toolErrorOf(t *testing.T, res *mcp.CallToolResult) toolError {
	t.Helper()
	if !res.IsError {
		t.Fatalf("want a tool error, got %+v", res)
	}
	var e toolError
	text := res.Content[0].(*mcp.TextContent).Text
	if err := json.Unmarshal([]byte(text), &e); err != nil {
		t.Fatalf("tool error %q: %v", text, err)
	}
	return e
}

// An assistant connected by OAuth sends through the official MCP client:
// the recipient gets the email, the agent reads it back, and a tool the
// connection has no scope for fails as a tool error with the API's code.
func TestMCPSendsAndReadsBack(t *testing.T) {
	d, s, c := sendingDash(t)
	conn := d.connect(t, c, "email:send emails:read", nil)
	sess := d.mcpSession(t, conn.access)

	listed, err := sess.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range listed.Tools {
		names = append(names, tool.Name)
		if tool.Description == "" || tool.InputSchema == nil {
			t.Errorf("tool %s lacks a description or schema", tool.Name)
		}
	}
	for _, want := range []string{"send_email", "send_batch", "get_email", "list_emails", "list_clicks", "list_events",
		"create_contact", "update_contact", "find_contacts", "report_automation_event", "check_deliverability", "list_campaigns",
		"list_segments"} {
		if !slices.Contains(names, want) {
			t.Errorf("tools %v lack %s", names, want)
		}
	}
	for _, name := range names {
		if strings.Contains(name, "bulk") || strings.Contains(name, "segment") && name != "list_segments" {
			t.Errorf("tool %s would send in bulk or write a segment", name)
		}
	}

	to := "reader-" + uuid.NewString()[:8] + "@example.com"
	res, err := sess.CallTool(t.Context(), &mcp.CallToolParams{Name: "send_email", Arguments: map[string]any{
		"from": s.sender.Email, "to": to, "subject": "From the assistant", "html": plainHTML,
		"idempotency_key": "agent-1",
	}})
	if err != nil || res.IsError {
		t.Fatalf("send_email: %v %+v", err, res)
	}
	var sent struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &sent); err != nil || sent.ID == "" {
		t.Fatalf("send_email answered %v (%v)", res.Content, err)
	}
	got := d.ses.sendsTo(to)
	if len(got) != 1 || !strings.Contains(string(got[0].Raw), "From the assistant") {
		t.Fatalf("SES got %d messages for %s", len(got), to)
	}

	res, err = sess.CallTool(t.Context(), &mcp.CallToolParams{Name: "get_email", Arguments: map[string]any{"id": sent.ID}})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, to) {
		t.Fatalf("get_email: %v %+v", err, res)
	}

	// No contacts:write: a tool error naming the scope, not a transport
	// failure.
	res, err = sess.CallTool(t.Context(), &mcp.CallToolParams{Name: "create_contact", Arguments: map[string]any{"email": "x@example.com"}})
	if err != nil {
		t.Fatalf("create_contact: transport error %v", err)
	}
	if e := toolErrorOf(t, res); e.Code != "insufficient_scope" || !strings.Contains(e.Message, "contacts:write") {
		t.Errorf("create_contact without the scope: %+v", e)
	}
	// Bad input: the API's invalid_field with its param.
	res, err = sess.CallTool(t.Context(), &mcp.CallToolParams{Name: "send_email", Arguments: map[string]any{
		"from": s.sender.Email, "to": "not-an-address", "subject": "x", "html": plainHTML,
	}})
	if err != nil {
		t.Fatal(err)
	}
	if e := toolErrorOf(t, res); e.Param == nil || *e.Param != "to" {
		t.Errorf("bad recipient: %+v, want param to", e)
	}
	if n := len(d.ses.sendsTo("not-an-address")); n != 0 {
		t.Errorf("a refused send reached SES %d times", n)
	}
}

// Without a token, /mcp answers 401 with the challenge an MCP client
// starts its OAuth flow from; a revoked token likewise.
func TestMCPRequiresAToken(t *testing.T) {
	e := startDev(t)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, e.url+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	want := `Bearer realm="sesame", resource_metadata="` + e.url + `/.well-known/oauth-protected-resource"`
	if res.StatusCode != http.StatusUnauthorized || res.Header.Get("WWW-Authenticate") != want {
		t.Errorf("no token: %d WWW-Authenticate %q", res.StatusCode, res.Header.Get("WWW-Authenticate"))
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1"}, nil)
	_, err = client.Connect(t.Context(), &mcp.StreamableClientTransport{
		Endpoint: e.url + "/mcp", HTTPClient: &http.Client{Transport: bearerTransport{"ps_oat_" + strings.Repeat("A", 43)}},
		DisableStandaloneSSE: true, MaxRetries: -1,
	}, nil)
	if err == nil {
		t.Error("an unknown token connected")
	}
}
