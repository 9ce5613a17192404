package devstack_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sesame-mail/sesame/internal/account"
	"github.com/sesame-mail/sesame/internal/api"
	"github.com/sesame-mail/sesame/internal/emulatortest/inbox"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// ownedBulkDash is a workspace approved for bulk sending with an owner
// signed in to the dashboard.
func ownedBulkDash(t *testing.T, e *env) (*dash, *bulkWS, *http.Client, string) {
	t.Helper()
	b := newBulkWS(t, e)
	address := "owner-" + uuid.NewString()[:8] + "@example.com"
	if _, err := (&account.Owners{Store: e.store.Owners}).Add(t.Context(), b.id, address); err != nil {
		t.Fatal(err)
	}
	d := &dash{env: e, ws: b.id, owner: address}
	c, csrf := d.signIn(t, address)
	return d, b, c, csrf
}

// suggestion is draft_campaign's answer.
type suggestion struct {
	Status         string `json:"status"`
	ApprovalID     string `json:"approval_id"`
	RecipientCount int    `json:"recipient_count"`
	Message        string `json:"message"`
}

// suggest calls draft_campaign, which must succeed.
func suggest(t *testing.T, sess *mcp.ClientSession, args map[string]any) suggestion {
	t.Helper()
	res, err := sess.CallTool(t.Context(), &mcp.CallToolParams{Name: "draft_campaign", Arguments: args})
	if err != nil || res.IsError {
		t.Fatalf("draft_campaign: %v %+v", err, res)
	}
	var out suggestion
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// An assistant connected with campaigns:suggest drafts a campaign through
// the official MCP client: it is frozen to the segment and waits; the
// dashboard shows it as the assistant's; the token has no way to approve
// or send it; the owner approves it and each recipient gets their email.
func TestMCPDraftCampaignIsASuggestionTheOwnerApproves(t *testing.T) {
	e := startDev(t)
	d, b, c, csrf := ownedBulkDash(t, e)
	ann := e.createContact(t, b.bulkKey, map[string]any{"email": rcpt("ann"), "tags": []string{"vip"}, "first_name": "Ann"})
	bob := e.createContact(t, b.bulkKey, map[string]any{"email": rcpt("bob"), "tags": []string{"vip"}})
	seg := b.segment(t, e, nil)
	conn := d.connect(t, c, "campaigns:suggest campaigns:read", nil)
	sess := d.mcpSession(t, conn.access)

	listed, err := sess.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range listed.Tools {
		names = append(names, tool.Name)
	}
	if !slices.Contains(names, "draft_campaign") {
		t.Fatalf("tools %v lack draft_campaign", names)
	}
	for _, name := range names {
		if strings.Contains(name, "approve") || strings.Contains(name, "bulk") {
			t.Errorf("tool %s would approve or send a campaign", name)
		}
	}

	s := suggest(t, sess, map[string]any{"segment_id": seg, "subject": `Hi {{ contact.first_name | "there" }}`,
		"html": "<p>Our winter sale starts Monday.</p>"})
	if s.Status != "pending_approval" || s.RecipientCount != 2 || !strings.Contains(s.Message, "approval") {
		t.Fatalf("draft_campaign answered %+v", s)
	}
	if n := len(e.ses.sendsTo(ann.Email)) + len(e.ses.sendsTo(bob.Email)); n != 0 {
		t.Fatalf("a suggestion sent %d emails before any approval", n)
	}

	// The token cannot approve it: /send/bulk needs a scope a connection
	// never holds, the dashboard does not take tokens, and the campaign
	// stays pending.
	e.bad().post(conn.access, "/api/v1/send/bulk", map[string]any{"segment_id": seg, "subject": "x", "html": "<p>x</p>"}).
		wantError(t, http.StatusForbidden, "insufficient_scope", "")
	if r := e.bad().post(conn.access, "/dashboard/approvals/"+s.ApprovalID+"/approve", map[string]any{}); strings.Contains(r.header.Get("Location"), "/campaigns/") {
		t.Errorf("the dashboard took a token's approval: %d %s", r.status, r.header.Get("Location"))
	}
	if got := e.getCampaign(t, conn.access, s.ApprovalID); got.Status != "pending_approval" || got.RecipientCount != 2 {
		t.Fatalf("campaign after the token's attempts: %+v", got)
	}

	// The owner sees it as the assistant's, in the queue and on its page.
	list := e.dashDo(t, c, "/dashboard/approvals", nil)
	row := between(list.body, s.ApprovalID, "</tr>")
	if !strings.Contains(row, "Suggested by Test assistant") {
		t.Errorf("approvals row of the suggestion: %q", row)
	}
	page := e.dashDo(t, c, "/dashboard/approvals/"+s.ApprovalID, nil)
	if want := `id="suggested-by">Test assistant (an application ` + d.owner + ` connected)`; !strings.Contains(page.body, want) {
		t.Errorf("approval page lacks %q", want)
	}
	if campaigns := e.dashDo(t, c, "/dashboard/campaigns", nil); !strings.Contains(between(campaigns.body, s.ApprovalID, "</tr>"), "Suggested by Test assistant") {
		t.Error("the campaigns list does not mark the suggestion")
	}

	approved := e.dashDo(t, c, "/dashboard/approvals/"+s.ApprovalID+"/approve", url.Values{"csrf": {csrf}, "at": {""}})
	if approved.status != http.StatusSeeOther {
		t.Fatalf("approve: %d %s", approved.status, approved.body)
	}
	drainSends(t, e.queues.Poller(t, queue.Sends.Name, api.Consumers(e.deps)[routes.CampaignSender]))
	for _, want := range []struct{ to, subject string }{{ann.Email, "Hi Ann"}, {bob.Email, "Hi there"}} {
		got := e.ses.sendsTo(want.to)
		if len(got) != 1 {
			t.Fatalf("%s got %d messages, want 1", want.to, len(got))
		}
		m := inbox.ParseStrict(t, got[0].Raw)
		if m.Subject != want.subject || !strings.Contains(m.HTML, "Our winter sale starts Monday.") || !strings.Contains(m.HTML, "Springfield") {
			t.Errorf("%s got subject %q, html %q", want.to, m.Subject, m.HTML)
		}
	}
}

// Without campaigns:suggest the tool is a tool error naming the scope;
// with it, the draft's rules hold (content, sender, audience, the
// workspace's approval for bulk sending), each refusal on its param, and
// nothing is stored. A sender of the workspace can be named.
func TestMCPDraftCampaignNeedsItsScopeAndTheDraftRules(t *testing.T) {
	e := startDev(t)
	d, b, c, _ := ownedBulkDash(t, e)
	b.vipContacts(t, e, 1)
	seg := b.segment(t, e, nil)
	nobody := b.segment(t, e, map[string]any{"all": []any{map[string]any{"field": "tags", "op": "has_tag", "value": "nobody"}}})

	reader := d.mcpSession(t, d.connect(t, c, "campaigns:read", nil).access)
	res, err := reader.CallTool(t.Context(), &mcp.CallToolParams{Name: "draft_campaign", Arguments: map[string]any{
		"segment_id": seg, "subject": "Hi", "html": "<p>x</p>"}})
	if err != nil {
		t.Fatalf("transport error %v", err)
	}
	if te := toolErrorOf(t, res); te.Code != "insufficient_scope" || !strings.Contains(te.Message, "campaigns:suggest") {
		t.Errorf("without the scope: %+v", te)
	}

	sess := d.mcpSession(t, d.connect(t, c, "campaigns:suggest", nil).access)
	for name, tc := range map[string]struct {
		args        map[string]any
		code, param string
	}{
		"no subject":          {map[string]any{"segment_id": seg, "html": "<p>x</p>"}, "missing_field", "subject"},
		"unknown merge tag":   {map[string]any{"segment_id": seg, "subject": "Hi", "html": "<p>{{ contact.nickname }}</p>"}, "invalid_field", "html"},
		"unknown sender":      {map[string]any{"segment_id": seg, "subject": "Hi", "html": "<p>x</p>", "sender_id": uuid.NewString()}, "sender_not_found", "sender_id"},
		"sender not a UUID":   {map[string]any{"segment_id": seg, "subject": "Hi", "html": "<p>x</p>", "sender_id": "hello@acme.test"}, "invalid_field", "sender_id"},
		"nobody subscribed":   {map[string]any{"segment_id": nobody, "subject": "Hi", "html": "<p>x</p>"}, "invalid_field", "segment_id"},
		"another's segment":   {map[string]any{"segment_id": uuid.NewString(), "subject": "Hi", "html": "<p>x</p>"}, "not_found", "segment_id"},
		"an unknown argument": {map[string]any{"segment_id": seg, "subject": "Hi", "html": "<p>x</p>", "send_now": true}, "invalid_field", "send_now"},
	} {
		t.Run(name, func(t *testing.T) {
			res, err := sess.CallTool(t.Context(), &mcp.CallToolParams{Name: "draft_campaign", Arguments: tc.args})
			if err != nil {
				t.Fatalf("transport error %v", err)
			}
			te := toolErrorOf(t, res)
			if te.Code != tc.code || te.Param == nil || *te.Param != tc.param {
				t.Errorf("got %+v, want %s on %s", te, tc.code, tc.param)
			}
		})
	}
	if l, _, _, err := e.store.Campaigns.ListCampaigns(t.Context(), b.id, "", "", 10); err != nil || len(l) != 0 {
		t.Fatalf("refused suggestions stored: %v, %v", l, err)
	}

	s := suggest(t, sess, map[string]any{"segment_id": seg, "subject": "Hi", "html": "<p>x</p>", "sender_id": b.sender.ID})
	got, err := e.store.Campaigns.GetCampaignRecord(t.Context(), b.id, s.ApprovalID)
	if err != nil || got.Sender.ID != b.sender.ID || got.SuggestedBy == nil || got.SuggestedBy.ClientName != "Test assistant" {
		t.Errorf("suggestion stored as %+v (%v)", got, err)
	}

	off := false
	b.update(t, e, workspace.Settings{BulkApproved: &off})
	res, err = sess.CallTool(t.Context(), &mcp.CallToolParams{Name: "draft_campaign", Arguments: map[string]any{
		"segment_id": seg, "subject": "Hi", "html": "<p>x</p>"}})
	if err != nil {
		t.Fatal(err)
	}
	if te := toolErrorOf(t, res); te.Code != "account_not_approved" {
		t.Errorf("a workspace not approved for bulk: %+v", te)
	}
}
