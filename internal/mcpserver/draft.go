package mcpserver

import (
	"encoding/json"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sesame-mail/sesame/internal/campaign/campaignhttp"
)

// draftTool suggests a bulk campaign: a draft marked as the caller's that
// waits for the owner's approval in the dashboard. It is served by an
// in-process route of the MCP function (campaignhttp.SuggestRoute), so it
// has the API's scope check, rate limit and errors without an /api/v1
// route; no route, tool or scope lets a token approve or send it.
var draftTool = tool{
	name: "draft_campaign", title: "Suggest a bulk campaign", route: campaignhttp.SuggestRoute,
	// Its body is the arguments, read by draftSchema rather than by an
	// OpenAPI component: the route is in no /api/v1 document.
	body: "draft_campaign", idempotent: true,
	description: "Draft a bulk campaign to a segment as a suggestion: it is frozen to the segment's subscribed recipients " +
		"and waits for the workspace owner, who sees it in the dashboard marked as yours and may edit, approve or discard it. " +
		"Nothing is sent unless they approve it. The text part is derived from the html; merge tags such as " +
		"{{ contact.first_name | \"there\" }} are checked. Needs campaigns:suggest.",
}

// draftSchema is draft_campaign's input: campaign.SuggestRequest.
var draftSchema = json.RawMessage(`{
  "type": "object",
  "additionalProperties": false,
  "required": ["segment_id", "subject", "html"],
  "properties": {
    "segment_id": {"type": "string", "format": "uuid", "description": "The segment to send to; its subscribed contacts off the do-not-send list are frozen as the recipients now."},
    "subject": {"type": "string", "minLength": 1, "description": "The subject line; contact merge tags need a fallback that is not empty."},
    "html": {"type": "string", "minLength": 1, "maxLength": 262144, "description": "The HTML body; the footer and one-click unsubscribe are added to every email."},
    "sender_id": {"type": "string", "format": "uuid", "description": "A sender of the workspace (see the senders); left out, the workspace's default sender."},
    "idempotency_key": {"type": "string", "minLength": 1, "maxLength": 255, "description": "A retry with the same key drafts nothing twice."}
  }
}`)

// addDraftTool adds draft_campaign to srv, served by api.
func addDraftTool(srv *mcp.Server, api http.Handler) {
	srv.AddTool(&mcp.Tool{
		Name: draftTool.name, Title: draftTool.title, Description: draftTool.description, InputSchema: draftSchema,
		Annotations: &mcp.ToolAnnotations{DestructiveHint: new(bool)},
	}, callRoute(api, draftTool))
}
