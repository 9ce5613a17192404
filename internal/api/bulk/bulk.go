// Package bulk declares the functions of the bulk routes: the draft
// (POST /send/bulk) and the campaign routes (list, get, cancel). Each
// builds the DynamoDB client, the key lookup and the repositories its
// route uses; none reaches SES or a queue: a draft sends nothing.
package bulk

import (
	"context"
	"encoding/json"
	"log/slog"

	"github.com/sesame-mail/sesame/internal/api/audience"
	"github.com/sesame-mail/sesame/internal/api/sdk"
	"github.com/sesame-mail/sesame/internal/api/wire"
	"github.com/sesame-mail/sesame/internal/campaign"
	"github.com/sesame-mail/sesame/internal/campaign/campaignhttp"
	"github.com/sesame-mail/sesame/internal/config"
	"github.com/sesame-mail/sesame/internal/deliverability"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/routes"
)

// The bulk routes' functions; the list signs its cursors.
var (
	SendBulk      = one(routes.SendBulk)
	ListCampaigns = wire.Function[config.List]{Name: routes.ListCampaigns.Function, AWS: sdk.Load,
		Build: func(_ context.Context, cfg config.List, env wire.Env) (any, error) {
			return serve(routes.ListCampaigns, env, cfg.DynamoDB, httpapi.Cursors{Secret: []byte(cfg.CursorSecret)})
		}}
	GetCampaign    = one(routes.GetCampaign)
	CancelCampaign = one(routes.CancelCampaign)
)

func one(rt routes.Route) wire.Function[config.Read] {
	return wire.Function[config.Read]{Name: rt.Function, AWS: sdk.Load,
		Build: func(_ context.Context, cfg config.Read, env wire.Env) (any, error) {
			return serve(rt, env, cfg.DynamoDB, httpapi.Cursors{})
		}}
}

func serve(rt routes.Route, env wire.Env, db config.DynamoDB, c httpapi.Cursors) (wire.RouteHandler, error) {
	t := dynamo.Open(env.AWS, db.Table)
	return wire.Route(env.Logger, &dynamo.Keys{Table: t}, rt, Handlers(t, c, env.Logger).Routes())
}

// Handlers serves the bulk routes over t.
func Handlers(t *dynamo.Table, c httpapi.Cursors, logger *slog.Logger) campaignhttp.Handlers {
	store := &dynamo.Campaigns{Table: t}
	return campaignhttp.Handlers{
		Drafts: &campaign.Drafts{
			Store: store, Workspaces: &dynamo.Workspaces{Table: t}, Segments: &dynamo.Segments{Table: t},
			Resolver: audience.Resolver(t), Check: Deliverability, Logger: logger,
		},
		Campaigns: &campaign.Service{Store: store},
		Cursors:   c,
	}
}

// Deliverability is the deliverability check of a campaign's content:
// bulk mail to which Sesame adds its footer and List-Unsubscribe.
func Deliverability(subject, html string, sender identity.Sender) (campaign.Verdict, error) {
	return json.Marshal(deliverability.Check(deliverability.Input{
		Subject: subject, HTML: html, SenderDomain: identity.DomainOf(sender.Email), Bulk: true, FooterAdded: true,
	}))
}
