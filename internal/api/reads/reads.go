// Package reads declares the functions of the routes served by DynamoDB
// alone: the read routes, and the do-not-send list's writes (add and
// remove an address). Each builds the DynamoDB client, the key lookup and
// the repositories its route uses, and nothing else.
package reads

import (
	"log/slog"

	"github.com/sesame-mail/sesame/internal/api/tableroutes"
	"github.com/sesame-mail/sesame/internal/api/wire"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/email/emailhttp"
	"github.com/sesame-mail/sesame/internal/event"
	"github.com/sesame-mail/sesame/internal/event/eventhttp"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/identity/identityhttp"
	"github.com/sesame-mail/sesame/internal/metrics"
	"github.com/sesame-mail/sesame/internal/metrics/metricshttp"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/suppression"
	"github.com/sesame-mail/sesame/internal/suppression/suppressionhttp"
)

// handlers builds, for each read route, the handler package that serves
// it over t with only the repositories that route reads; the route is
// among its Routes.
var handlers = map[routes.Route]func(t *dynamo.Table, c httpapi.Cursors) []httpapi.Route{
	routes.ListEmails: func(t *dynamo.Table, c httpapi.Cursors) []httpapi.Route {
		return emailhttp.Handlers{Emails: &email.Service{Store: &dynamo.Emails{Table: t}}, Cursors: c}.Routes()
	},
	routes.GetEmail: func(t *dynamo.Table, _ httpapi.Cursors) []httpapi.Route {
		return emailhttp.Handlers{Emails: &email.Service{Store: &dynamo.Emails{Table: t}}}.Routes()
	},
	routes.Clicks: func(t *dynamo.Table, _ httpapi.Cursors) []httpapi.Route {
		return emailhttp.Handlers{Emails: &email.Service{Store: &dynamo.Emails{Table: t}, Clicks: &dynamo.Clicks{Table: t}}}.Routes()
	},
	routes.Events: func(t *dynamo.Table, c httpapi.Cursors) []httpapi.Route {
		return eventhttp.Handlers{Events: &event.Service{Store: &dynamo.Events{Table: t}}, Cursors: c}.Routes()
	},
	routes.Domains: func(t *dynamo.Table, c httpapi.Cursors) []httpapi.Route {
		return identityhttp.Handlers{Domains: &identity.Domains{Store: &dynamo.Domains{Table: t}}, Cursors: c}.Routes()
	},
	routes.Metrics: func(t *dynamo.Table, _ httpapi.Cursors) []httpapi.Route {
		return metricshttp.Handlers{Metrics: &metrics.Service{Store: &dynamo.Metrics{Table: t}}}.Routes()
	},
	routes.ListSuppressions:  suppressions,
	routes.AddSuppressions:   suppressions,
	routes.DeleteSuppression: suppressions,
}

// suppressions serves the do-not-send list routes; only the list pages.
func suppressions(t *dynamo.Table, c httpapi.Cursors) []httpapi.Route {
	return suppressionhttp.Handlers{Suppressions: &suppression.Service{Store: &dynamo.Suppressions{Table: t}}, Cursors: c}.Routes()
}

// The read routes' functions. A route that pages signs its cursors, so
// it needs the cursor secret; the others do not.
var (
	ListEmails = tableroutes.List(routes.ListEmails, of(routes.ListEmails))
	GetEmail   = tableroutes.Read(routes.GetEmail, of(routes.GetEmail))
	Clicks     = tableroutes.Read(routes.Clicks, of(routes.Clicks))
	Events     = tableroutes.List(routes.Events, of(routes.Events))
	Domains    = tableroutes.List(routes.Domains, of(routes.Domains))
	Metrics    = tableroutes.Read(routes.Metrics, of(routes.Metrics))

	ListSuppressions  = tableroutes.List(routes.ListSuppressions, of(routes.ListSuppressions))
	AddSuppressions   = tableroutes.Read(routes.AddSuppressions, of(routes.AddSuppressions))
	DeleteSuppression = tableroutes.Read(routes.DeleteSuppression, of(routes.DeleteSuppression))
)

// of is the handlers of read route rt, with only the repositories it reads.
func of(rt routes.Route) tableroutes.Handlers {
	return func(t *dynamo.Table, c httpapi.Cursors, _ *slog.Logger) []httpapi.Route { return handlers[rt](t, c) }
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
