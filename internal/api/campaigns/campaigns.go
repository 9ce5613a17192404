// Package campaigns declares the functions of the campaign routes: the
// draft (send-bulk) and list-, get- and cancel-campaign. Each
// builds the DynamoDB client, the key lookup and the repositories its
// route uses; none reaches SES or a queue: a draft sends nothing.
package campaigns

import (
	"log/slog"

	"github.com/sesame-mail/sesame/internal/api/segments"
	"github.com/sesame-mail/sesame/internal/api/wire/tablefn"
	"github.com/sesame-mail/sesame/internal/campaign"
	"github.com/sesame-mail/sesame/internal/campaign/campaignhttp"
	"github.com/sesame-mail/sesame/internal/deliverability"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/campaigndb"
	"github.com/sesame-mail/sesame/internal/dynamo/segmentdb"
	"github.com/sesame-mail/sesame/internal/dynamo/workspacedb"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/routes"
)

// The campaign routes' functions; the list signs its cursors.
var (
	SendBulk       = tablefn.Read(routes.SendBulk, campaigns)
	ListCampaigns  = tablefn.List(routes.ListCampaigns, campaigns)
	GetCampaign    = tablefn.Read(routes.GetCampaign, campaigns)
	CancelCampaign = tablefn.Read(routes.CancelCampaign, campaigns)
)

func campaigns(t *dynamo.Table, c httpapi.Cursors, logger *slog.Logger) []httpapi.Route {
	return Handlers(t, c, logger).Routes()
}

// Handlers serves the campaign routes over t.
func Handlers(t *dynamo.Table, c httpapi.Cursors, logger *slog.Logger) campaignhttp.Handlers {
	store := &campaigndb.Campaigns{Table: t}
	return campaignhttp.Handlers{
		Drafts: &campaign.Drafts{
			Store: store, Workspaces: &workspacedb.Workspaces{Table: t}, Segments: &segmentdb.Segments{Table: t},
			Resolver: segments.Resolver(t), Check: deliverability.Campaign, Logger: logger,
			Senders: &workspacedb.Senders{Table: t},
		},
		Campaigns: &campaign.Service{Store: store},
		Cursors:   c,
	}
}
