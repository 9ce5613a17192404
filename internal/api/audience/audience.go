// Package audience declares the functions of the contact routes: each
// builds the DynamoDB client, the key lookup and the contacts repository,
// and nothing else.
package audience

import (
	"context"

	"github.com/sesame-mail/sesame/internal/api/sdk"
	"github.com/sesame-mail/sesame/internal/api/wire"
	"github.com/sesame-mail/sesame/internal/config"
	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/contact/contacthttp"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/routes"
)

// The contact routes' functions; the list signs its cursors.
var (
	CreateContact = one(routes.CreateContact)
	ListContacts  = wire.Function[config.List]{Name: routes.ListContacts.Function, AWS: sdk.Load,
		Build: func(_ context.Context, cfg config.List, env wire.Env) (any, error) {
			return serve(routes.ListContacts, env, cfg.DynamoDB, httpapi.Cursors{Secret: []byte(cfg.CursorSecret)})
		}}
	GetContact    = one(routes.GetContact)
	UpdateContact = one(routes.UpdateContact)
	DeleteContact = one(routes.DeleteContact)
)

func one(rt routes.Route) wire.Function[config.Read] {
	return wire.Function[config.Read]{Name: rt.Function, AWS: sdk.Load,
		Build: func(_ context.Context, cfg config.Read, env wire.Env) (any, error) {
			return serve(rt, env, cfg.DynamoDB, httpapi.Cursors{})
		}}
}

func serve(rt routes.Route, env wire.Env, db config.DynamoDB, c httpapi.Cursors) (wire.RouteHandler, error) {
	t := dynamo.Open(env.AWS, db.Table)
	return wire.Route(env.Logger, &dynamo.Keys{Table: t}, rt, Handlers(t, c).Routes())
}

// Handlers serves the contact routes over t.
func Handlers(t *dynamo.Table, c httpapi.Cursors) contacthttp.Handlers {
	return contacthttp.Handlers{Service: contact.Service{Store: &dynamo.Contacts{Table: t}}, Cursors: c}
}
