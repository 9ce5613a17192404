// Package api builds every /api/v1 route and queue consumer at once, for
// the processes that serve them all (the dev server, tests). A Lambda
// function builds only its own, through the packages below internal/api
// (see wire); both use the same builders.
package api

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sesv2"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/sesame-mail/sesame/internal/api/authserver"
	"github.com/sesame-mail/sesame/internal/api/automations"
	automationrunner "github.com/sesame-mail/sesame/internal/api/automations/runner"
	automationtick "github.com/sesame-mail/sesame/internal/api/automations/tick"
	"github.com/sesame-mail/sesame/internal/api/campaigns"
	"github.com/sesame-mail/sesame/internal/api/campaigns/sender"
	campaigntick "github.com/sesame-mail/sesame/internal/api/campaigns/tick"
	"github.com/sesame-mail/sesame/internal/api/contacts"
	apideliverability "github.com/sesame-mail/sesame/internal/api/deliverability"
	"github.com/sesame-mail/sesame/internal/api/domains"
	"github.com/sesame-mail/sesame/internal/api/emails"
	"github.com/sesame-mail/sesame/internal/api/emails/cancel"
	"github.com/sesame-mail/sesame/internal/api/emails/review"
	"github.com/sesame-mail/sesame/internal/api/emails/send"
	apievents "github.com/sesame-mail/sesame/internal/api/events"
	"github.com/sesame-mail/sesame/internal/api/mcp"
	apimetrics "github.com/sesame-mail/sesame/internal/api/metrics"
	apiopenapi "github.com/sesame-mail/sesame/internal/api/openapi"
	"github.com/sesame-mail/sesame/internal/api/owners"
	"github.com/sesame-mail/sesame/internal/api/pages"
	"github.com/sesame-mail/sesame/internal/api/segments"
	"github.com/sesame-mail/sesame/internal/api/site"
	"github.com/sesame-mail/sesame/internal/api/statusfeed"
	"github.com/sesame-mail/sesame/internal/api/suppressions"
	"github.com/sesame-mail/sesame/internal/api/templates"
	"github.com/sesame-mail/sesame/internal/api/webhookdispatch"
	"github.com/sesame-mail/sesame/internal/api/wire"
	"github.com/sesame-mail/sesame/internal/automation/automationhttp"
	"github.com/sesame-mail/sesame/internal/automation/runner"
	"github.com/sesame-mail/sesame/internal/campaign/engine"
	"github.com/sesame-mail/sesame/internal/config"
	"github.com/sesame-mail/sesame/internal/deliverability"
	"github.com/sesame-mail/sesame/internal/deliverability/deliverabilityhttp"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/repositories"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/openapi"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/sending/sendinghttp"
	"github.com/sesame-mail/sesame/internal/ses"
	"github.com/sesame-mail/sesame/internal/status"
	"github.com/sesame-mail/sesame/internal/unsubscribe"
	"github.com/sesame-mail/sesame/internal/webhook"
)

// Functions are the Lambda functions, one per function of
// routes.RouteFunctions and consumer of routes.Consumers: what each
// functions/<name>/main.go runs.
var Functions = []wire.Starter{
	emails.ListEmails, emails.GetEmail, send.Send, send.SendBatch, cancel.CancelEmail, domains.Domains,
	emails.Clicks, apievents.Events, apimetrics.Metrics, apiopenapi.OpenAPI, pages.Unsubscribe,
	suppressions.ListSuppressions, suppressions.AddSuppressions, suppressions.DeleteSuppression,
	review.Review, statusfeed.Status, webhookdispatch.WebhookDispatch,
	contacts.CreateContact, contacts.ListContacts, contacts.GetContact, contacts.UpdateContact, contacts.DeleteContact,
	segments.CreateSegment,
	apideliverability.CheckDeliverability,
	campaigns.SendBulk, campaigns.ListCampaigns, campaigns.GetCampaign, campaigns.CancelCampaign,
	sender.CampaignSender, campaigntick.CampaignTick,
	automationrunner.AutomationRunner, automationtick.AutomationTick,
	automations.AutomationEvents,
	templates.CreateTemplate, templates.ListTemplates, templates.GetTemplate, templates.UpdateTemplate, templates.DeleteTemplate,
	site.Dashboard, authserver.AuthServer, mcp.MCP,
}

// Function is the function named name.
func Function(name string) (wire.Starter, bool) {
	for _, f := range Functions {
		if f.FunctionName() == name {
			return f, true
		}
	}
	return nil, false
}

// Deps is what the handlers and consumers need, built once per process.
type Deps struct {
	Repos    repositories.Set
	Cursors  httpapi.Cursors
	Logger   *slog.Logger
	Sending  *sending.Service
	Reviewer *sending.Reviewer
	Status   *status.Processor
	Webhooks *webhook.Dispatcher
	// Unsubscribe serves the unsubscribe pages; Links builds their links
	// on the process's public URL (campaign emails, tests).
	Unsubscribe *unsubscribe.Service
	Links       unsubscribe.Links
	// CampaignSender consumes the sends queue; CampaignStarter is the
	// owner's campaign.Starter and runs the tick (Ticker).
	CampaignSender  *engine.Sender
	CampaignStarter *engine.Starter
	// AutomationRunner consumes the automations queue; AutomationTick
	// wakes the runs whose long wait ended.
	AutomationRunner *runner.Runner
	AutomationTick   *runner.Tick
	// AutomationEvents serves POST /automations/events.
	AutomationEvents automationhttp.Handlers
}

// SQSAPI is the part of the SQS API the functions use.
type SQSAPI interface {
	queue.SendAPI
	queue.BatchSendAPI
	queue.VisibilityAPI
}

// Clients are the AWS SDK clients of a process.
type Clients struct {
	DynamoDB dynamo.DB
	SES      ses.API
	SQS      SQSAPI
}

// NewClients builds the SDK clients from the AWS configuration, every
// call bounded by b as a function's are (wire.Bound); no call is made
// until the first request.
func NewClients(awsCfg aws.Config, b config.SDK, dynamoOpts ...func(*dynamodb.Options)) Clients {
	awsCfg = wire.Bound(awsCfg, b)
	return Clients{
		DynamoDB: dynamodb.NewFromConfig(awsCfg, dynamoOpts...),
		SES:      sesv2.NewFromConfig(awsCfg, send.SESBound(b)),
		SQS:      sqs.NewFromConfig(awsCfg),
	}
}

// NewDeps builds every function's services over the clients, from the
// builders the functions use.
func NewDeps(cfg config.API, c Clients, logger *slog.Logger) Deps {
	repos := repositories.New(dynamo.NewTable(c.DynamoDB, cfg.Table))
	statusProcessor := statusfeed.Processor(repos.Table, cfg.WebhooksQueue, c.SQS, logger)
	svc := send.Service(repos.Table, cfg.SES, &ses.Client{API: c.SES}, &queue.Publisher{SQS: c.SQS, QueueURL: cfg.ReviewQueueURL},
		statusProcessor, logger)
	unsub := pages.Unsubscriber(repos.Table, cfg.Unsubscribing)
	campaignSender := sender.NewSender(repos.Table, config.CampaignSender{
		SES: cfg.SES, WebhooksQueue: cfg.WebhooksQueue, SendsQueue: cfg.SendsQueue,
		Unsubscribing: cfg.Unsubscribing, PublicURL: cfg.PublicURL, Pacing: cfg.Pacing, Breaker: cfg.Breaker,
	}, sender.Deps{
		Campaigns: repos.Campaigns, Transport: svc.Transport, Account: sender.Account(c.SES),
		Sends: c.SQS, Visibility: c.SQS, Webhooks: c.SQS, Logger: logger,
	})
	return Deps{
		Repos:       repos,
		Cursors:     httpapi.NewCursors([]byte(cfg.CursorSecret)),
		Logger:      logger,
		Sending:     svc,
		Reviewer:    review.Reviewer(repos.Table, svc),
		Status:      statusProcessor,
		Webhooks:    webhookdispatch.Dispatcher(repos.Table, cfg.Delivery, cfg.WebhooksQueue, c.SQS, logger),
		Unsubscribe: unsub,
		Links:       unsubscribe.Links{BaseURL: cfg.PublicURL.PublicURL, Signer: unsub.Signer},

		CampaignSender:  campaignSender,
		CampaignStarter: campaigntick.NewStarter(repos.Table, repos.Campaigns, cfg.SendsQueue, c.SQS, logger),

		AutomationRunner: automationrunner.NewRunner(repos.Table, config.AutomationRunner{
			SES: cfg.SES, WebhooksQueue: cfg.WebhooksQueue, AutomationsQueue: cfg.AutomationsQueue,
			Unsubscribing: cfg.Unsubscribing, PublicURL: cfg.PublicURL, Pacing: cfg.Pacing,
		}, automationrunner.Deps{Transport: svc.Transport, Account: sender.Account(c.SES), Queue: c.SQS, Visibility: c.SQS, Webhooks: c.SQS, Logger: logger}),
		AutomationTick:   automationtick.NewTick(repos.Table, cfg.AutomationsQueue, config.ReviewQueue{ReviewQueueURL: cfg.ReviewQueueURL}, c.SQS),
		AutomationEvents: automations.Handlers(repos.Table, cfg.AutomationsQueue, c.SQS, logger),
	}
}

// NewDashboard builds the dashboard over the process's table and clients
// (site.New), its sign-in links also logged when logLinks (the local
// stack).
func NewDashboard(cfg config.API, d Deps, c Clients, raw email.RawReader, logLinks bool) (http.Handler, error) {
	app, err := site.New(site.Settings{
		PublicURL: cfg.PublicURL, DashboardSecret: cfg.DashboardSecret, DashboardMail: cfg.DashboardMail,
		Queues: owners.Queues{ReviewQueueURL: cfg.ReviewQueueURL, SendsQueueURL: cfg.SendsQueueURL},
	}, d.Repos, owners.Clients{SES: c.SES, SQS: c.SQS, Raw: raw}, c.SES, d.Logger, logLinks)
	if err != nil {
		return nil, err
	}
	// Its AWS calls are the dashboard function's, as under its own role.
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		app.ServeHTTP(w, r.WithContext(routes.WithFunction(r.Context(), routes.Dashboard.Function)))
	}), nil
}

// NewAuthServer builds the OAuth authorization server over the process's
// table (site.NewAuthServer), its issuer the process's public URL.
func NewAuthServer(d Deps) http.Handler {
	h := authserver.New(config.PublicURL{PublicURL: d.Links.BaseURL}, d.Repos.OAuth, d.Repos.Owners, d.Logger)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(routes.WithFunction(r.Context(), routes.AuthServer.Function)))
	})
}

// NewMCP builds the MCP endpoint over d (mcp.New): its tools call
// d's routes.
func NewMCP(d Deps) (http.Handler, error) {
	// The API's routes and the tools' own in-process one.
	all := append(Routes(d), campaigns.Handlers(d.Repos.Table, d.Cursors, d.Logger).SuggestRoutes()...)
	return mcp.New(d.Repos.Keys, d.Logger, all, d.Repos.Table)
}

// Routes returns every implemented route with its handler: routes.API,
// then routes.Pages.
func Routes(d Deps) []httpapi.Route {
	t := d.Repos.Table
	all := emails.Handlers(t, d.Cursors).Routes()
	all = append(all, apievents.Handlers(t, d.Cursors).Routes()...)
	all = append(all, domains.Handlers(t, d.Cursors).Routes()...)
	all = append(all, apimetrics.Handlers(t).Routes()...)
	all = append(all, suppressions.Handlers(t, d.Cursors).Routes()...)
	all = append(all, sendinghttp.Handlers{Service: d.Sending}.Routes()...)
	all = append(all, openapi.Handlers{}.Routes()...)
	all = append(all, pages.Routes(d.Unsubscribe, d.Logger)...)
	all = append(all, contacts.Handlers(d.Repos.Table, d.Cursors).Routes()...)
	all = append(all, segments.Handlers(d.Repos.Table).Routes()...)
	all = append(all, templates.Handlers(d.Repos.Table, d.Cursors).Routes()...)
	all = append(all, deliverabilityhttp.Handlers{Checks: &deliverability.Service{Workspaces: d.Repos.Workspaces}}.Routes()...)
	all = append(all, campaigns.Handlers(d.Repos.Table, d.Cursors, d.Logger).Routes()...)
	all = append(all, d.AutomationEvents.Routes()...)
	return all
}

// Consumers returns the handler of each queue consumer, by function; each
// runs with its function in the context (routes.WithFunction).
func Consumers(d Deps) map[routes.Consumer]queue.Consumer {
	all := map[routes.Consumer]queue.Consumer{
		routes.Review:           queue.NewConsumer(d.Reviewer.Handle),
		routes.Status:           queue.NewConsumer(d.Status.Handle),
		routes.WebhookDispatch:  queue.NewConsumer(d.Webhooks.Handle),
		routes.CampaignSender:   queue.NewConsumer(d.CampaignSender.Handle),
		routes.AutomationRunner: queue.NewConsumer(d.AutomationRunner.Handle),
	}
	for c, consume := range all {
		all[c] = func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
			return consume(routes.WithFunction(ctx, c.Function), ev)
		}
	}
	return all
}

// Ticks returns the handler of each scheduled function, by function: what
// the dev server runs at each one's interval, with its function in the
// context.
func Ticks(d Deps) map[routes.Scheduled]func(context.Context) error {
	all := map[routes.Scheduled]func(context.Context) error{
		routes.CampaignTick:   campaigntick.Tick(d.CampaignStarter, d.Logger),
		routes.AutomationTick: automationtick.Tick(d.AutomationTick, d.Logger),
	}
	for sch, tick := range all {
		all[sch] = func(ctx context.Context) error { return tick(routes.WithFunction(ctx, sch.Function)) }
	}
	return all
}

// Handler serves the given routes (all of them when none is named) through
// the API core: request id, auth, scopes, rate limit, errors, logs.
func Handler(d Deps, only ...routes.Route) (http.Handler, error) {
	srv := &httpapi.Server{Auth: d.Repos.Keys, Logger: d.Logger}
	all := Routes(d)
	if len(only) == 0 {
		return srv.Handler(all...), nil
	}
	picked, err := wire.Pick(all, only...)
	if err != nil {
		return nil, err
	}
	return srv.Handler(picked...), nil
}

// NewLogger is the JSON logger of every Sesame process.
func NewLogger(level slog.Level) *slog.Logger { return wire.NewLogger(level) }
