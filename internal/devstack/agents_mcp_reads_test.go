package devstack_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/identity"
)

// list_segments and sesame://senders, which no /api/v1 route serves, read
// the segment and sender services through the official Go SDK client:
// the workspace's segments as the API shows one, the senders it may send
// from now (not one on an unverified domain, not another workspace's),
// the default marked; without segments:read or domains:read each answers
// insufficient_scope, as a tool error and a read error.
func TestMCPListsSegmentsAndSenders(t *testing.T) {
	d, s, c := sendingDash(t)
	ctx := t.Context()
	// A sender on a domain still pending, and another workspace's segment.
	if _, err := d.store.Domains.AddDomain(ctx, s.id, "pending-"+s.id[:8]+".example", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := d.store.Senders.AddSender(ctx, s.id, identity.Sender{Email: "news@pending-" + s.id[:8] + ".example"}, false); err != nil {
		t.Fatal(err)
	}
	var seg struct{ Data segmentBody }
	d.post(s.scopedKey(t, d.env, apikey.SegmentsWrite), "/api/v1/segments", map[string]any{"name": "VIPs", "filter": vip}).
		decode(t, http.StatusCreated, &seg)
	_, otherKey := d.segmentKey(t)
	d.post(otherKey, "/api/v1/segments", map[string]any{"name": "Not yours", "filter": vip}).decode(t, http.StatusCreated, &struct{}{})

	conn := d.connect(t, c, "segments:read domains:read", nil)
	sess := d.mcpSession(t, conn.access)
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "list_segments"})
	if err != nil || res.IsError {
		t.Fatalf("list_segments: %v %+v", err, res)
	}
	var segs struct{ Data []segmentBody }
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &segs); err != nil {
		t.Fatal(err)
	}
	if len(segs.Data) != 1 || segs.Data[0].ID != seg.Data.ID || segs.Data[0].Name != "VIPs" || segs.Data[0].ContactCount != seg.Data.ContactCount {
		t.Errorf("list_segments = %+v, want the workspace's one segment %s", segs.Data, seg.Data.ID)
	}

	listed, err := sess.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range listed.Resources {
		uris = append(uris, r.URI)
	}
	if !slices.Contains(uris, "sesame://senders") || !slices.Contains(uris, "sesame://domains") {
		t.Errorf("resources %v lack sesame://senders or sesame://domains", uris)
	}
	read, err := sess.ReadResource(ctx, &mcp.ReadResourceParams{URI: "sesame://senders"})
	if err != nil {
		t.Fatalf("read senders: %v", err)
	}
	var senders struct {
		Data []struct {
			ID, From, Email string
			Default         bool
		}
	}
	if err := json.Unmarshal([]byte(read.Contents[0].Text), &senders); err != nil {
		t.Fatal(err)
	}
	want := s.sender
	if len(senders.Data) != 1 || senders.Data[0].ID != want.ID || senders.Data[0].From != `"Acme" <`+want.Email+`>` || !senders.Data[0].Default {
		t.Errorf("senders = %+v, want only the default %s", senders.Data, want.Email)
	}
	// The From it names is one a send takes.
	to := rcpt("from-resource")
	res, err = d.mcpSession(t, d.connect(t, c, "email:send", nil).access).CallTool(ctx, &mcp.CallToolParams{Name: "send_email",
		Arguments: map[string]any{"from": senders.Data[0].From, "to": to, "subject": "From the resource", "html": plainHTML}})
	if err != nil || res.IsError {
		t.Fatalf("send_email from %s: %v %+v", senders.Data[0].From, err, res)
	}

	narrow := d.mcpSession(t, d.connect(t, c, "emails:read", nil).access)
	res, err = narrow.CallTool(ctx, &mcp.CallToolParams{Name: "list_segments"})
	if err != nil {
		t.Fatalf("list_segments without the scope: transport error %v", err)
	}
	if e := toolErrorOf(t, res); e.Code != "insufficient_scope" || !strings.Contains(e.Message, "segments:read") {
		t.Errorf("list_segments without segments:read: %+v", e)
	}
	if _, err := narrow.ReadResource(ctx, &mcp.ReadResourceParams{URI: "sesame://senders"}); err == nil || !strings.Contains(err.Error(), "insufficient_scope") {
		t.Errorf("senders without domains:read: %v, want insufficient_scope", err)
	}
}
