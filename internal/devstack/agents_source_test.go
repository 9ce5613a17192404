package devstack_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sesame-mail/sesame/internal/account"
)

// emailSource is the Email object's source.
type emailSource struct {
	Type       string `json:"type"`
	Connection *struct {
		ID         string `json:"id"`
		ClientID   string `json:"client_id"`
		ClientName string `json:"client_name"`
	} `json:"connection"`
}

func sourceOf(t *testing.T, data map[string]any) emailSource {
	t.Helper()
	raw, err := json.Marshal(data["source"])
	if err != nil {
		t.Fatal(err)
	}
	var s emailSource
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("source %s: %v", raw, err)
	}
	return s
}

// A send made with a connection's token, on /api/v1 or through /mcp, is
// marked as the connection's on the Email (GET /emails/{id} and the
// list); a key's is api. The audit log tallies the connection's emails
// in one entry per connection and hour, which the dashboard shows.
func TestConnectionSendsAreMarked(t *testing.T) {
	d, s, c := sendingDash(t)
	e := d.env
	byKey := e.post(s.key, "/api/v1/send", msg("key", nil)).sent(t, http.StatusOK)
	if src := sourceOf(t, e.emailData(t, s.key, byKey.ID)); src.Type != "api" || src.Connection != nil {
		t.Errorf("a key's send has source %+v, want api", src)
	}

	conn := d.connect(t, c, "email:send emails:read", nil)
	grants, err := e.store.OAuth.ListGrants(t.Context(), s.id)
	if err != nil || len(grants) != 1 {
		t.Fatalf("grants %v, %v", grants, err)
	}
	grant := grants[0].ID
	byToken := e.post(conn.access, "/api/v1/send", msg("token", nil)).sent(t, http.StatusOK)
	batch := e.post(conn.access, "/api/v1/send/batch", map[string]any{"emails": []any{msg("b1", nil), msg("b2", nil)}}).batch(t, 2)

	sess := d.mcpSession(t, conn.access)
	res, err := sess.CallTool(t.Context(), &mcp.CallToolParams{Name: "send_email", Arguments: msg("mcp", map[string]any{"from": s.sender.Email})})
	if err != nil || res.IsError {
		t.Fatalf("send_email: %v %+v", err, res)
	}
	var byMCP struct{ ID string }
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &byMCP); err != nil {
		t.Fatal(err)
	}
	// A replay makes no email and counts none.
	again := msg("replay", nil)
	for range 2 {
		e.post(conn.access, "/api/v1/send", again, "Idempotency-Key", "agent-once").sent(t, http.StatusOK)
	}

	for _, id := range []string{byToken.ID, batch[0].ID, batch[1].ID, byMCP.ID} {
		src := sourceOf(t, e.emailData(t, conn.access, id))
		if src.Type != "connection" || src.Connection == nil || src.Connection.ID != grant ||
			src.Connection.ClientID != conn.clientID || src.Connection.ClientName != "Test assistant" {
			t.Errorf("email %s has source %+v, want the connection %s", id, src, grant)
		}
	}
	var list struct {
		Data []map[string]any `json:"data"`
	}
	e.get(bearer(s.key), "/api/v1/emails?limit=100").decode(t, http.StatusOK, &list)
	kinds := map[string]string{}
	for _, em := range list.Data {
		kinds[em["id"].(string)] = sourceOf(t, em).Type
	}
	if kinds[byKey.ID] != "api" || kinds[byToken.ID] != "connection" || kinds[byMCP.ID] != "connection" {
		t.Errorf("GET /emails lists sources %v", kinds)
	}

	entries, err := (&account.Audit{Store: e.store.Owners}).List(t.Context(), s.id, 50)
	if err != nil {
		t.Fatal(err)
	}
	var tallies []account.AuditEntry
	for _, en := range entries {
		if en.Action == "connection.sent" {
			tallies = append(tallies, en)
		}
	}
	// Each request adds to the hour's entry; the test may straddle an
	// hour, so the entries' counts add up.
	total := 0
	for _, en := range tallies {
		total += en.Count
		if en.Target != grant || en.Actor != "client:Test assistant" {
			t.Errorf("tally entry %+v, want the connection %s", en, grant)
		}
	}
	if len(tallies) == 0 || total != 5 {
		t.Errorf("audit tallies %+v, want 5 emails of the connection", tallies)
	}
	page := e.dashDo(t, c, "/dashboard/settings/audit", nil)
	if !strings.Contains(page.body, "connection.sent (") || !strings.Contains(page.body, grant) {
		t.Errorf("the audit page does not show the connection's emails")
	}
}
