package api

import (
	"context"
	"net/http"

	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/sesame-mail/sesame/internal/api/bulk"
	"github.com/sesame-mail/sesame/internal/api/sdk"
	"github.com/sesame-mail/sesame/internal/api/wire"
	"github.com/sesame-mail/sesame/internal/config"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/mcpserver"
	"github.com/sesame-mail/sesame/internal/routes"
)

// MCP is the MCP endpoint's function (ANY /mcp). Its tools are the /api/v1
// routes, called in-process, so it builds them all as the dev server does.
var MCP = wire.Function[config.MCP]{
	Name: routes.MCP.Function,
	AWS:  sdk.Load,
	Build: func(_ context.Context, cfg config.MCP, env wire.Env) (any, error) {
		h, err := NewMCP(NewDeps(cfg.API(), NewClients(env.AWS, cfg.SDK), env.Logger))
		if err != nil {
			return nil, err
		}
		return httpadapter.New(h).ProxyWithContext, nil
	},
}

// NewMCP is the MCP endpoint over d: the API's routes behind the API's
// authentication, each call of a route in its function's name.
func NewMCP(d Deps) (http.Handler, error) {
	srv := &httpapi.Server{Auth: d.Repos.Keys, Logger: d.Logger}
	// The API's routes and the tools' own in-process ones.
	all := append(Routes(d), bulk.Handlers(d.Repos.Table, d.Cursors, d.Logger).SuggestRoutes()...)
	h, err := mcpserver.New(srv.Handler(all...), srv.Guard)
	if err != nil {
		return nil, err
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(routes.WithFunction(r.Context(), routes.MCP.Function)))
	}), nil
}
