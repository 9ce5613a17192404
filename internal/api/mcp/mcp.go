// Package mcp declares the MCP endpoint's function (ANY /mcp). Its
// tools call the /api/v1 routes they stand for in-process, so it builds
// those routes from their own packages' builders, and no other: it links
// no dashboard, consumer or unrelated route (docs/decisions.md, "Binary
// size budget"). list_segments and sesame://senders, which no route
// serves, call the segment and sender services.
package mcp

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/aws/aws-sdk-go-v2/service/sesv2"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/sesame-mail/sesame/internal/api/automations"
	"github.com/sesame-mail/sesame/internal/api/campaigns"
	"github.com/sesame-mail/sesame/internal/api/contacts"
	"github.com/sesame-mail/sesame/internal/api/domains"
	"github.com/sesame-mail/sesame/internal/api/emails"
	"github.com/sesame-mail/sesame/internal/api/emails/send"
	"github.com/sesame-mail/sesame/internal/api/events"
	"github.com/sesame-mail/sesame/internal/api/sdk"
	"github.com/sesame-mail/sesame/internal/api/statusfeed"
	"github.com/sesame-mail/sesame/internal/api/wire"
	"github.com/sesame-mail/sesame/internal/config"
	"github.com/sesame-mail/sesame/internal/deliverability"
	"github.com/sesame-mail/sesame/internal/deliverability/deliverabilityhttp"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/apikeydb"
	"github.com/sesame-mail/sesame/internal/dynamo/segmentdb"
	"github.com/sesame-mail/sesame/internal/dynamo/workspacedb"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/mcpserver"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/segment"
	"github.com/sesame-mail/sesame/internal/sending/sendinghttp"
	"github.com/sesame-mail/sesame/internal/ses"
)

// MCP is the MCP endpoint's function.
var MCP = wire.Function[config.MCP]{
	Name: routes.MCP.Function,
	AWS:  sdk.Load,
	Build: func(_ context.Context, cfg config.MCP, env wire.Env) (any, error) {
		t := dynamo.Open(env.AWS, cfg.Table)
		q := sqs.NewFromConfig(env.AWS)
		transport := &ses.Client{API: sesv2.NewFromConfig(env.AWS, send.SESBound(cfg.SDK))}
		sending := send.Service(t, cfg.SES, transport, &queue.Publisher{SQS: q, QueueURL: cfg.ReviewQueueURL},
			statusfeed.Processor(t, cfg.WebhooksQueue, q, env.Logger), env.Logger)
		c := httpapi.NewCursors([]byte(cfg.CursorSecret))
		all := emails.Handlers(t, c).Routes()
		all = append(all, events.Handlers(t, c).Routes()...)
		all = append(all, domains.Handlers(t, c).Routes()...)
		all = append(all, sendinghttp.Handlers{Service: sending}.Routes()...)
		all = append(all, contacts.Handlers(t, c).Routes()...)
		all = append(all, automations.Handlers(t, cfg.AutomationsQueue, q, env.Logger).Routes()...)
		all = append(all, deliverabilityhttp.Handlers{Checks: &deliverability.Service{Workspaces: &workspacedb.Workspaces{Table: t}}}.Routes()...)
		drafts := campaigns.Handlers(t, c, env.Logger)
		all = append(all, drafts.Routes()...)
		all = append(all, drafts.SuggestRoutes()...) // draft_campaign's in-process route
		h, err := New(&apikeydb.Keys{Table: t}, env.Logger, all, t)
		if err != nil {
			return nil, err
		}
		return httpadapter.New(h).ProxyWithContext, nil
	},
}

// New is the MCP endpoint: the tools' routes, picked from all, and the
// segment and sender services over t, behind the API's authentication
// (keys); its own AWS calls are the MCP function's.
func New(keys httpapi.Authenticator, logger *slog.Logger, all []httpapi.Route, t *dynamo.Table) (http.Handler, error) {
	picked, err := wire.Pick(all, mcpserver.ToolRoutes()...)
	if err != nil {
		return nil, err
	}
	h, err := mcpserver.New(mcpserver.Backend{
		Auth: keys, Logger: logger, Routes: picked,
		Segments: &segment.Service{Store: &segmentdb.Segments{Table: t}},
		Senders:  &identity.Senders{Store: &workspacedb.Senders{Table: t}, Domains: &workspacedb.Domains{Table: t}},
	})
	if err != nil {
		return nil, err
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(routes.WithFunction(r.Context(), routes.MCP.Function)))
	}), nil
}
