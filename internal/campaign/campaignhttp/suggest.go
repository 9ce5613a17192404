package campaignhttp

import (
	"net/http"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/campaign"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/sending/sendinghttp"
)

// SuggestRoute serves the MCP tool draft_campaign in-process, inside the
// MCP function, behind the API's authentication, scope check, rate limit
// and errors. It is no /api/v1 route: no API Gateway method or function
// of its own, and the dev server does not mount it.
var SuggestRoute = routes.Route{
	Function: routes.MCP.Function, Method: http.MethodPost, Path: "/mcp/tools/draft_campaign",
	Scope: apikey.CampaignsSuggest,
}

// SuggestRoutes returns the in-process routes of the MCP server's tools.
func (h Handlers) SuggestRoutes() []httpapi.Route {
	return []httpapi.Route{{Route: SuggestRoute, Handler: h.Suggest}}
}

// Suggest drafts a campaign as the caller's suggestion: 200 with the
// draft result, pending the owner's approval.
func (h Handlers) Suggest(w http.ResponseWriter, r *http.Request) error {
	var req campaign.SuggestRequest
	idem, hash, err := sendinghttp.ReadIdempotent(r, SuggestRoute, &req)
	if err != nil {
		return err
	}
	out, err := h.Drafts.Suggest(r.Context(), httpapi.PrincipalFrom(r.Context()), req, idem, hash)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
	return nil
}
