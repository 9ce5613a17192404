// Package tablefn builds the functions of the routes served over the
// table alone: the key lookup and the route's services over one DynamoDB
// client. A route that pages signs its cursors, so it needs the cursor
// secret; the others do not. Apart from wire so that a function that
// reads no table (get-openapi) links no storage.
package tablefn

import (
	"context"
	"log/slog"

	"github.com/sesame-mail/sesame/internal/api/sdk"
	"github.com/sesame-mail/sesame/internal/api/wire"
	"github.com/sesame-mail/sesame/internal/config"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/apikeydb"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/routes"
)

// Handlers are the handlers over t of a package whose routes include the
// function's.
type Handlers func(t *dynamo.Table, c httpapi.Cursors, logger *slog.Logger) []httpapi.Route

// Read is the function of route rt, which does not page.
func Read(rt routes.Route, h Handlers) wire.Function[config.Read] {
	return wire.Function[config.Read]{Name: rt.Function, AWS: sdk.Load,
		Build: func(_ context.Context, cfg config.Read, env wire.Env) (any, error) {
			return serve(rt, h, env, cfg.DynamoDB, httpapi.Cursors{})
		}}
}

// List is the function of route rt, which pages.
func List(rt routes.Route, h Handlers) wire.Function[config.List] {
	return wire.Function[config.List]{Name: rt.Function, AWS: sdk.Load,
		Build: func(_ context.Context, cfg config.List, env wire.Env) (any, error) {
			return serve(rt, h, env, cfg.DynamoDB, httpapi.NewCursors([]byte(cfg.CursorSecret)))
		}}
}

func serve(rt routes.Route, h Handlers, env wire.Env, db config.DynamoDB, c httpapi.Cursors) (wire.RouteHandler, error) {
	t := dynamo.Open(env.AWS, db.Table)
	return wire.Route(env.Logger, &apikeydb.Keys{Table: t}, rt, h(t, c, env.Logger))
}
