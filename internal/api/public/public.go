// Package public declares the functions of the routes served without an
// API key (routes.Route.Public): they read nothing of a workspace, so they
// build no SDK client and link none.
package public

import (
	"context"

	"github.com/sesame-mail/sesame/internal/api/wire"
	"github.com/sesame-mail/sesame/internal/config"
	"github.com/sesame-mail/sesame/internal/openapi"
	"github.com/sesame-mail/sesame/internal/routes"
)

// OpenAPI serves GET /api/v1/openapi.json.
var OpenAPI = wire.Function[config.Public]{
	Name: routes.OpenAPI.Function,
	Build: func(_ context.Context, _ config.Public, env wire.Env) (any, error) {
		return wire.Route(env.Logger, nil, routes.OpenAPI, openapi.Handlers{}.Routes())
	},
}
