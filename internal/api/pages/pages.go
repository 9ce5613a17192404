// Package pages declares the functions of the routes that answer an
// email's recipient outside /api/v1 (routes.Pages): no API key, a signed
// token instead; each builds the DynamoDB client and the repositories its
// pages write, and nothing else.
package pages

import (
	"context"
	"log/slog"

	"github.com/sesame-mail/sesame/internal/api/sdk"
	"github.com/sesame-mail/sesame/internal/api/wire"
	"github.com/sesame-mail/sesame/internal/config"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/contactdb"
	"github.com/sesame-mail/sesame/internal/dynamo/suppressiondb"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/unsubscribe"
	"github.com/sesame-mail/sesame/internal/unsubscribe/unsubscribehttp"
)

// Unsubscribe serves GET and POST /unsubscribe/{token}: it updates
// contacts and puts suppressions, and reads no API key.
var Unsubscribe = wire.Function[config.Unsubscribe]{
	Name: routes.Unsubscribe.Function,
	AWS:  sdk.Load,
	Build: func(_ context.Context, cfg config.Unsubscribe, env wire.Env) (any, error) {
		svc := Unsubscriber(dynamo.Open(env.AWS, cfg.Table), cfg.Unsubscribing)
		return wire.Routes(env.Logger, nil, Routes(svc, env.Logger), routes.Unsubscribe, routes.UnsubscribeOneClick)
	},
}

// Unsubscriber is the unsubscribe service over t: contacts and the
// do-not-send list, tokens checked with the configured secret.
func Unsubscriber(t *dynamo.Table, cfg config.Unsubscribing) *unsubscribe.Service {
	return &unsubscribe.Service{
		Signer:       unsubscribe.Signer{Secret: []byte(cfg.UnsubscribeSecret)},
		Contacts:     &contactdb.Contacts{Table: t},
		Suppressions: &suppressiondb.Suppressions{Table: t},
	}
}

// Routes are the page routes over svc.
func Routes(svc *unsubscribe.Service, logger *slog.Logger) []httpapi.Route {
	return unsubscribehttp.Handlers{Service: svc, Logger: logger}.Routes()
}
