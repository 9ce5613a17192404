// Package bulk declares the functions of the bulk routes: the draft
// (POST /send/bulk) and the campaign routes (list, get, cancel). Each
// builds the DynamoDB client, the key lookup and the repositories its
// route uses; none reaches SES or a queue: a draft sends nothing.
package bulk

import (
	"log/slog"

	"github.com/sesame-mail/sesame/internal/api/audience"
	"github.com/sesame-mail/sesame/internal/api/tableroutes"
	"github.com/sesame-mail/sesame/internal/campaign"
	"github.com/sesame-mail/sesame/internal/campaign/campaignhttp"
	"github.com/sesame-mail/sesame/internal/deliverability"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/routes"
)

// The bulk routes' functions; the list signs its cursors.
var (
	SendBulk       = tableroutes.Read(routes.SendBulk, campaigns)
	ListCampaigns  = tableroutes.List(routes.ListCampaigns, campaigns)
	GetCampaign    = tableroutes.Read(routes.GetCampaign, campaigns)
	CancelCampaign = tableroutes.Read(routes.CancelCampaign, campaigns)
)

func campaigns(t *dynamo.Table, c httpapi.Cursors, logger *slog.Logger) []httpapi.Route {
	return Handlers(t, c, logger).Routes()
}

// Handlers serves the bulk routes over t.
func Handlers(t *dynamo.Table, c httpapi.Cursors, logger *slog.Logger) campaignhttp.Handlers {
	store := &dynamo.Campaigns{Table: t}
	return campaignhttp.Handlers{
		Drafts: &campaign.Drafts{
			Store: store, Workspaces: &dynamo.Workspaces{Table: t}, Segments: &dynamo.Segments{Table: t},
			Resolver: audience.Resolver(t), Check: deliverability.Campaign, Logger: logger,
			Senders: &dynamo.Senders{Table: t},
		},
		Campaigns: &campaign.Service{Store: store},
		Cursors:   c,
	}
}
