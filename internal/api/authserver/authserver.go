// Package authserver declares the OAuth authorization server's function
// (ANY /oauth/… and its two well-known metadata paths): DynamoDB only.
package authserver

import (
	"context"
	"log/slog"
	"net/http"
	"strings"

	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/sesame-mail/sesame/internal/account"
	"github.com/sesame-mail/sesame/internal/api/sdk"
	"github.com/sesame-mail/sesame/internal/api/wire"
	"github.com/sesame-mail/sesame/internal/config"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/accountdb"
	"github.com/sesame-mail/sesame/internal/dynamo/oauthdb"
	"github.com/sesame-mail/sesame/internal/oauth"
	"github.com/sesame-mail/sesame/internal/oauth/oauthhttp"
	"github.com/sesame-mail/sesame/internal/routes"
)

// AuthServer serves the OAuth authorization server's endpoints.
var AuthServer = wire.Function[config.OAuth]{
	Name: routes.AuthServer.Function,
	AWS:  sdk.Load,
	Build: func(_ context.Context, cfg config.OAuth, env wire.Env) (any, error) {
		t := dynamo.Open(env.AWS, cfg.Table)
		return httpadapter.New(New(cfg.PublicURL, &oauthdb.OAuth{Table: t}, &accountdb.Owners{Table: t}, env.Logger)).ProxyWithContext, nil
	},
}

// New is the authorization server over its store, its issuer the public
// URL; grants and refreshes go to the workspace's audit log.
func New(public config.PublicURL, store oauth.Store, audit account.AuditStore, logger *slog.Logger) http.Handler {
	return oauthhttp.Handler{
		Service: &oauth.Service{Store: store, Audit: &account.Audit{Store: audit}},
		Issuer:  strings.TrimSuffix(public.PublicURL, "/"), Logger: logger,
	}
}
