// Package openapi declares the function of the API document
// (get-openapi), served without an API key: it reads nothing of a
// workspace, so it builds no SDK client and links none.
package openapi

import (
	"context"

	"github.com/sesame-mail/sesame/internal/api/wire"
	"github.com/sesame-mail/sesame/internal/config"
	document "github.com/sesame-mail/sesame/internal/openapi"
	"github.com/sesame-mail/sesame/internal/routes"
)

// OpenAPI serves GET /api/v1/openapi.json.
var OpenAPI = wire.Function[config.Public]{
	Name: routes.OpenAPI.Function,
	Build: func(_ context.Context, _ config.Public, env wire.Env) (any, error) {
		return wire.Route(env.Logger, nil, routes.OpenAPI, document.Handlers{}.Routes())
	},
}
