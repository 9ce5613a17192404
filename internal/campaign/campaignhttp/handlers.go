// Package campaignhttp serves the bulk draft (POST /api/v1/send/bulk) and
// the campaign routes (list, get, cancel) over the campaign services.
package campaignhttp

import (
	"context"
	"net/http"

	"github.com/sesame-mail/sesame/internal/campaign"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/sending/sendinghttp"
)

// Handlers serves the bulk draft and the campaign routes; a function
// sets only what its route uses.
type Handlers struct {
	Drafts    *campaign.Drafts
	Campaigns *campaign.Service
	Cursors   httpapi.Cursors
}

// Routes returns the routes served by h.
func (h Handlers) Routes() []httpapi.Route {
	return []httpapi.Route{
		{Route: routes.SendBulk, Handler: h.Draft},
		{Route: routes.ListCampaigns, Handler: h.List},
		{Route: routes.GetCampaign, Handler: h.Get},
		{Route: routes.CancelCampaign, Handler: h.Cancel},
	}
}

// Draft answers POST /api/v1/send/bulk: 200 with the draft result.
func (h Handlers) Draft(w http.ResponseWriter, r *http.Request) error {
	var req campaign.DraftRequest
	idem, hash, err := sendinghttp.ReadIdempotent(r, routes.SendBulk, &req)
	if err != nil {
		return err
	}
	out, err := h.Drafts.Draft(r.Context(), httpapi.PrincipalFrom(r.Context()), req, idem, hash)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
	return nil
}

// List answers GET /api/v1/campaigns: newest first, filter status.
func (h Handlers) List(w http.ResponseWriter, r *http.Request) error {
	var status campaign.Status
	if q := r.URL.Query(); q.Has("status") {
		status = campaign.Status(q.Get("status"))
		if !status.Valid() {
			return fail.Invalid("status", "status must be one of pending_approval, scheduled, sending, paused, sent, cancelled, discarded")
		}
	}
	ws := httpapi.PrincipalFrom(r.Context()).WorkspaceID
	binding := ws + "|campaigns|" + string(status)
	return httpapi.ServeList(w, r, h.Cursors, binding, func(ctx context.Context, after string, limit int) ([]campaign.Campaign, string, bool, error) {
		return h.Campaigns.Page(ctx, ws, status, after, limit)
	}, campaign.Campaign.View)
}

// Get answers GET /api/v1/campaigns/{id}.
func (h Handlers) Get(w http.ResponseWriter, r *http.Request) error {
	id, err := httpapi.PathUUID(r, "campaign")
	if err != nil {
		return err
	}
	c, err := h.Campaigns.Get(r.Context(), httpapi.PrincipalFrom(r.Context()).WorkspaceID, id)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, httpapi.Data[campaign.View]{Data: c.View()})
	return nil
}

// Cancel answers POST /api/v1/campaigns/{id}/cancel with the campaign as
// cancelled.
func (h Handlers) Cancel(w http.ResponseWriter, r *http.Request) error {
	id, err := httpapi.PathUUID(r, "campaign")
	if err != nil {
		return err
	}
	c, err := h.Campaigns.Cancel(r.Context(), httpapi.PrincipalFrom(r.Context()).WorkspaceID, id)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, httpapi.Data[campaign.View]{Data: c.View()})
	return nil
}
