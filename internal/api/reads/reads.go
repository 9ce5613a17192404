// Package reads declares the functions of the routes served by DynamoDB
// alone: the read routes, and the do-not-send list's writes (add and
// remove an address). Each builds the DynamoDB client, the key lookup and
// the repositories its route uses, and nothing else.
package reads

import (
	"context"

	"github.com/sesame-mail/sesame/internal/api/sdk"
	"github.com/sesame-mail/sesame/internal/api/wire"
	"github.com/sesame-mail/sesame/internal/config"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/email/emailhttp"
	"github.com/sesame-mail/sesame/internal/event/eventhttp"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/identity/identityhttp"
	"github.com/sesame-mail/sesame/internal/metrics/metricshttp"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/suppression/suppressionhttp"
)

// handlers builds, for each read route, the handler package that serves
// it over t with only the repositories that route reads; the route is
// among its Routes.
var handlers = map[routes.Route]func(t *dynamo.Table, c httpapi.Cursors) []httpapi.Route{
	routes.ListEmails: func(t *dynamo.Table, c httpapi.Cursors) []httpapi.Route {
		return emailhttp.Handlers{Store: &dynamo.Emails{Table: t}, Cursors: c}.Routes()
	},
	routes.GetEmail: func(t *dynamo.Table, _ httpapi.Cursors) []httpapi.Route {
		return emailhttp.Handlers{Store: &dynamo.Emails{Table: t}}.Routes()
	},
	routes.Clicks: func(t *dynamo.Table, _ httpapi.Cursors) []httpapi.Route {
		return emailhttp.Handlers{Store: &dynamo.Emails{Table: t}, ClickStore: &dynamo.Clicks{Table: t}}.Routes()
	},
	routes.Events: func(t *dynamo.Table, c httpapi.Cursors) []httpapi.Route {
		return eventhttp.Handlers{Store: &dynamo.Events{Table: t}, Cursors: c}.Routes()
	},
	routes.Domains: func(t *dynamo.Table, c httpapi.Cursors) []httpapi.Route {
		return identityhttp.Handlers{Store: &dynamo.Domains{Table: t}, Cursors: c}.Routes()
	},
	routes.Metrics: func(t *dynamo.Table, _ httpapi.Cursors) []httpapi.Route {
		return metricshttp.Handlers{Store: &dynamo.Metrics{Table: t}}.Routes()
	},
	routes.ListSuppressions:  suppressions,
	routes.AddSuppressions:   suppressions,
	routes.DeleteSuppression: suppressions,
}

// suppressions serves the do-not-send list routes; only the list pages.
func suppressions(t *dynamo.Table, c httpapi.Cursors) []httpapi.Route {
	return suppressionhttp.Handlers{Store: &dynamo.Suppressions{Table: t}, Cursors: c}.Routes()
}

// The read routes' functions. A route that pages signs its cursors, so
// it needs the cursor secret; the others do not.
var (
	ListEmails = list(routes.ListEmails)
	GetEmail   = read(routes.GetEmail)
	Clicks     = read(routes.Clicks)
	Events     = list(routes.Events)
	Domains    = list(routes.Domains)
	Metrics    = read(routes.Metrics)

	ListSuppressions  = list(routes.ListSuppressions)
	AddSuppressions   = read(routes.AddSuppressions)
	DeleteSuppression = read(routes.DeleteSuppression)
)

func read(rt routes.Route) wire.Function[config.Read] {
	return wire.Function[config.Read]{Name: rt.Function, AWS: sdk.Load,
		Build: func(_ context.Context, cfg config.Read, env wire.Env) (any, error) {
			return serve(rt, env, cfg.DynamoDB, httpapi.Cursors{})
		}}
}

func list(rt routes.Route) wire.Function[config.List] {
	return wire.Function[config.List]{Name: rt.Function, AWS: sdk.Load,
		Build: func(_ context.Context, cfg config.List, env wire.Env) (any, error) {
			return serve(rt, env, cfg.DynamoDB, httpapi.Cursors{Secret: []byte(cfg.CursorSecret)})
		}}
}

// serve is the handler of read route rt: the key lookup and the route's
// repositories over one DynamoDB client.
func serve(rt routes.Route, env wire.Env, db config.DynamoDB, c httpapi.Cursors) (wire.RouteHandler, error) {
	t := dynamo.Open(env.AWS, db.Table)
	return wire.Route(env.Logger, &dynamo.Keys{Table: t}, rt, handlers[rt](t, c))
}

// Routes are every route of the package over t, for the dev server.
func Routes(t *dynamo.Table, c httpapi.Cursors) []httpapi.Route {
	var all []httpapi.Route
	for _, rt := range routes.API {
		if h, ok := handlers[rt]; ok {
			picked, _ := wire.Pick(h(t, c), rt) // each handler package serves its route
			all = append(all, picked...)
		}
	}
	return all
}
