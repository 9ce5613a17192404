// Package checks declares the function of the deliverability check: it
// reads nothing of a workspace, so it builds the DynamoDB client for the
// key lookup alone, and links no repository besides the keys'.
package checks

import (
	"context"

	"github.com/sesame-mail/sesame/internal/api/sdk"
	"github.com/sesame-mail/sesame/internal/api/wire"
	"github.com/sesame-mail/sesame/internal/config"
	"github.com/sesame-mail/sesame/internal/deliverability/deliverabilityhttp"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/routes"
)

// CheckDeliverability serves POST /api/v1/deliverability/check.
var CheckDeliverability = wire.Function[config.Read]{Name: routes.CheckDeliverability.Function, AWS: sdk.Load,
	Build: func(_ context.Context, cfg config.Read, env wire.Env) (any, error) {
		keys := &dynamo.Keys{Table: dynamo.Open(env.AWS, cfg.DynamoDB.Table)}
		return wire.Route(env.Logger, keys, routes.CheckDeliverability, deliverabilityhttp.Handlers{}.Routes())
	}}
