// Package api assembles the /api/v1 routes and the queue consumers from the
// domain packages. The Lambda functions serve one route or queue each and
// the dev server serves them all, through the same handlers.
package api

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sesv2"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/sesame-mail/sesame/internal/attachment/fetch"
	"github.com/sesame-mail/sesame/internal/config"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/email/emailhttp"
	"github.com/sesame-mail/sesame/internal/event/eventhttp"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/identity/identityhttp"
	"github.com/sesame-mail/sesame/internal/metrics/metricshttp"
	"github.com/sesame-mail/sesame/internal/openapi"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/sending/sendinghttp"
	"github.com/sesame-mail/sesame/internal/ses"
	"github.com/sesame-mail/sesame/internal/status"
	"github.com/sesame-mail/sesame/internal/webhook"
	"github.com/sesame-mail/sesame/internal/webhook/post"
)

// Deps is what the handlers and consumers need, built once per process.
type Deps struct {
	Repos    dynamo.Repositories
	Cursors  httpapi.Cursors
	Logger   *slog.Logger
	Sending  *sending.Service
	Reviewer *sending.Reviewer
	Status   *status.Processor
	Webhooks *webhook.Dispatcher
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

// NewClients builds the SDK clients from the AWS configuration; no call is
// made until the first request.
func NewClients(awsCfg aws.Config, dynamoOpts ...func(*dynamodb.Options)) Clients {
	return Clients{
		DynamoDB: dynamodb.NewFromConfig(awsCfg, dynamoOpts...),
		SES:      sesv2.NewFromConfig(awsCfg),
		SQS:      sqs.NewFromConfig(awsCfg),
	}
}

// NewDeps wires the domain services over the clients.
func NewDeps(cfg config.API, c Clients, logger *slog.Logger) Deps {
	repos := dynamo.NewRepositories(dynamo.NewTable(c.DynamoDB, cfg.Table))
	svc := &sending.Service{
		Store:       repos.Sends,
		Transport:   &ses.Client{API: c.SES},
		Attachments: fetch.New(fetch.Options{}),
		Review:      &queue.Publisher{SQS: c.SQS, QueueURL: cfg.ReviewQueueURL},
		ConfigSets:  sending.ConfigSets{Full: cfg.ConfigSetFull, Essential: cfg.ConfigSetEssential, Off: cfg.ConfigSetOff},
		Logger:      logger,
	}
	fanout := &webhook.Fanout{Endpoints: repos.Webhooks, Queue: &queue.BatchPublisher{SQS: c.SQS, QueueURL: cfg.WebhooksQueueURL}}
	statusProcessor := &status.Processor{Store: repos.Statuses, Publisher: fanout, Logger: logger}
	svc.Failures = statusProcessor
	return Deps{
		Repos:    repos,
		Cursors:  httpapi.Cursors{Secret: []byte(cfg.CursorSecret)},
		Logger:   logger,
		Sending:  svc,
		Reviewer: &sending.Reviewer{Held: repos.Held, Workspaces: repos.Workspaces, Service: svc},
		Status:   statusProcessor,
		Webhooks: webhook.NewDispatcher(repos.Webhooks,
			post.NewClient(post.Options{Timeout: cfg.WebhookTimeout, AllowedPrefixes: cfg.WebhookAllowedPrefixes}),
			&queue.Visibility{SQS: c.SQS, QueueURL: cfg.WebhooksQueueURL},
			webhook.DispatcherOptions{Timeout: cfg.WebhookTimeout, Logger: logger}),
	}
}

// Routes returns every implemented route with its handler.
func Routes(d Deps) []httpapi.Route {
	var all []httpapi.Route
	all = append(all, emailhttp.Handlers{Store: d.Repos.Emails, ClickStore: d.Repos.Clicks, Cursors: d.Cursors}.Routes()...)
	all = append(all, eventhttp.Handlers{Store: d.Repos.Events, Cursors: d.Cursors}.Routes()...)
	all = append(all, metricshttp.Handlers{Store: d.Repos.Metrics}.Routes()...)
	all = append(all, sendinghttp.Handlers{Service: d.Sending}.Routes()...)
	all = append(all, identityhttp.Handlers{Store: d.Repos.Domains, Cursors: d.Cursors}.Routes()...)
	all = append(all, openapi.Handlers{}.Routes()...)
	return all
}

// Consumers returns the handler of each queue consumer, by function.
func Consumers(d Deps) map[routes.Consumer]queue.Consumer {
	return map[routes.Consumer]queue.Consumer{
		routes.Review:          queue.NewConsumer(d.Reviewer.Handle),
		routes.Status:          queue.NewConsumer(d.Status.Handle),
		routes.WebhookDispatch: queue.NewConsumer(d.Webhooks.Handle),
	}
}

// Handler serves the given routes (all of them when none is named) through
// the API core: request id, auth, scopes, rate limit, errors, logs.
func Handler(d Deps, only ...routes.Route) (http.Handler, error) {
	srv := &httpapi.Server{Auth: d.Repos.Keys, Logger: d.Logger}
	all := Routes(d)
	if len(only) == 0 {
		return srv.Handler(all...), nil
	}
	var picked []httpapi.Route
	for _, want := range only {
		found := false
		for _, rt := range all {
			if rt.Route == want {
				picked, found = append(picked, rt), true
			}
		}
		if !found {
			return nil, fmt.Errorf("route %s %s has no handler", want.Method, want.Path)
		}
	}
	return srv.Handler(picked...), nil
}

// NewLogger is the JSON logger of every Sesame process.
func NewLogger(level slog.Level) *slog.Logger {
	return slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
}

// LambdaMain runs the Lambda function that serves rt. Every API function's
// main calls it: config from the environment, SDK clients built once, no
// network call before the first request.
func LambdaMain(rt routes.Route) {
	run(rt.Function, func(d Deps) (any, error) { return LambdaHandler(d, rt) })
}

// LambdaHandler is the Lambda handler of route rt: API Gateway proxy
// events through the route's http.Handler. Routes page through lists, so
// they need the cursor secret.
func LambdaHandler(d Deps, rt routes.Route) (func(context.Context, events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error), error) {
	if len(d.Cursors.Secret) == 0 {
		return nil, fmt.Errorf("config: SESAME_CURSOR_SECRET is required by API functions")
	}
	h, err := Handler(d, rt)
	if err != nil {
		return nil, err
	}
	return httpadapter.New(h).ProxyWithContext, nil
}

// ConsumerMain runs the Lambda function of a queue consumer.
func ConsumerMain(c routes.Consumer) {
	run(c.Function, func(d Deps) (any, error) {
		h, ok := Consumers(d)[c]
		if !ok {
			return nil, fmt.Errorf("consumer %s has no handler", c.Function)
		}
		return h, nil
	})
}

func run(name string, handler func(Deps) (any, error)) {
	ctx := context.Background()
	if err := start(ctx, handler); err != nil {
		slog.Error("function failed to start", slog.String("function", name), slog.Any("err", err))
		os.Exit(1)
	}
}

func start(ctx context.Context, handler func(Deps) (any, error)) error {
	var cfg config.API
	if err := config.Load(ctx, &cfg); err != nil {
		return err
	}
	awsCfg, err := awsconfig.LoadDefaultConfig(ctx)
	if err != nil {
		return fmt.Errorf("aws config: %w", err)
	}
	h, err := handler(NewDeps(cfg, NewClients(awsCfg), NewLogger(cfg.LogLevel)))
	if err != nil {
		return err
	}
	lambda.StartWithOptions(h, lambda.WithContext(ctx))
	return nil
}
