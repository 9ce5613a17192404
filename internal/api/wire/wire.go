// Package wire starts one Lambda function: it loads and checks the
// function's own config, builds only what its route or queue needs and
// hands the handler to the Lambda runtime. The functions themselves are
// declared in the packages beside it, one per route area and named by
// it (emails, contacts, campaigns, ...; a consumer or tick by what it
// consumes or runs: statusfeed, webhookdispatch, campaigns/tick, ...).
// An imported package runs its init in every binary that links it, so an
// area's functions that link different things are apart: emails serves
// the reads, emails/send the sends (SES, the MIME writer), emails/cancel
// the cancel (the send path's store, no SES).
//
// A main is one call, wire.Main(<package>.<Function>). internal/api builds
// every function's services at once, from the same builders, for the dev
// server and tests.
package wire

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"
	"github.com/sethvargo/go-envconfig"

	"github.com/sesame-mail/sesame/internal/config"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/routes"
)

// Env is what a function is built from besides its config.
type Env struct {
	Logger *slog.Logger
	// AWS is the SDK configuration its clients are built from, every call
	// bounded in time (Bound); zero for a function that calls no AWS
	// service.
	AWS aws.Config
}

// LoadAWS loads the AWS SDK configuration.
type LoadAWS func(context.Context) (aws.Config, error)

// Function is one Lambda function: its name (routes.Route.Function or
// routes.Consumer.Function), the config type C it reads and how its
// handler is built.
type Function[C config.Function] struct {
	Name string
	// AWS loads the SDK configuration; nil for a function that calls no
	// AWS service (it then links no SDK configuration code either).
	AWS LoadAWS
	// Build makes the Lambda handler from the checked config: the SDK
	// clients, services and handler the function needs, and no network
	// call.
	Build func(ctx context.Context, cfg C, env Env) (any, error)
	// logTo receives the function's log lines; nil is standard error,
	// where Lambda reads them.
	logTo io.Writer
}

// Starter is a Function of any config type.
type Starter interface {
	// FunctionName is the function's name.
	FunctionName() string
	// Config returns an empty config of the function's type.
	Config() config.Function
	// Handler loads the config from l, refusing one that lacks a required
	// variable, and builds the handler.
	Handler(ctx context.Context, l envconfig.Lookuper) (any, error)
	// WithAWS is the function with its SDK configuration loaded by load
	// (the console's, or a test's); a function that calls no AWS service
	// is returned as it is.
	WithAWS(load LoadAWS) Starter
	// WithLogTo is the function logging to w (the bench counts the bytes).
	WithLogTo(w io.Writer) Starter
}

// FunctionName is f's name.
func (f Function[C]) FunctionName() string { return f.Name }

// Config returns an empty C.
func (f Function[C]) Config() config.Function {
	var c C
	return c
}

// Handler loads C from l and builds f's handler.
func (f Function[C]) Handler(ctx context.Context, l envconfig.Lookuper) (any, error) {
	var cfg C
	if err := config.LoadFunction(ctx, f.Name, l, &cfg); err != nil {
		return nil, err
	}
	logTo := f.logTo
	if logTo == nil {
		logTo = os.Stderr
	}
	env := Env{Logger: NewLoggerTo(logTo, cfg.Level())}
	if f.AWS != nil {
		var err error
		if env.AWS, err = f.AWS(ctx); err != nil {
			return nil, fmt.Errorf("aws config: %w", err)
		}
		env.AWS = Bound(env.AWS, sdkBounds(cfg))
	}
	return f.Build(ctx, cfg, env)
}

// sdkBounds are the SDK bounds cfg sets, the defaults if it sets none.
func sdkBounds(cfg config.Function) config.SDK {
	if b, ok := cfg.(interface{ SDKBounds() config.SDK }); ok {
		return b.SDKBounds()
	}
	return config.SDK{}.SDKBounds()
}

// WithAWS returns f loading its SDK configuration with load.
func (f Function[C]) WithAWS(load LoadAWS) Starter {
	if f.AWS != nil {
		f.AWS = load
	}
	return f
}

// WithLogTo returns f logging to w.
func (f Function[C]) WithLogTo(w io.Writer) Starter {
	f.logTo = w
	return f
}

// Main runs f as a Lambda function: config from the environment, checked
// before anything is built, then the handler, built once. A function
// that cannot start says why and exits.
func Main(f Starter) {
	ctx := context.Background()
	h, err := f.Handler(ctx, envconfig.OsLookuper())
	if err != nil {
		slog.Error("function failed to start", slog.String("function", f.FunctionName()), slog.Any("err", err))
		os.Exit(1)
	}
	lambda.StartWithOptions(h, lambda.WithContext(ctx))
}

// NewLogger is the JSON logger of every Sesame process.
func NewLogger(level slog.Level) *slog.Logger { return NewLoggerTo(os.Stderr, level) }

// NewLoggerTo is NewLogger writing to w.
func NewLoggerTo(w io.Writer, level slog.Level) *slog.Logger {
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level}))
}

// RouteHandler is the Lambda handler of an API route: API Gateway v1
// proxy events.
type RouteHandler = func(context.Context, events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error)

// Route is the handler of route rt, one of handlers (the routes of the
// handler package that serves it), behind the API core: request id,
// auth, scopes, rate limit, errors and logs. auth may be nil for a public
// route.
func Route(logger *slog.Logger, auth httpapi.Authenticator, rt routes.Route, handlers []httpapi.Route) (RouteHandler, error) {
	return Routes(logger, auth, handlers, rt)
}

// Routes is Route for a function that serves several routes (the methods
// of one path, e.g. GET and POST /unsubscribe/{token}).
func Routes(logger *slog.Logger, auth httpapi.Authenticator, handlers []httpapi.Route, rts ...routes.Route) (RouteHandler, error) {
	picked, err := Pick(handlers, rts...)
	if err != nil {
		return nil, err
	}
	srv := &httpapi.Server{Auth: auth, Logger: logger}
	return httpadapter.New(srv.Handler(picked...)).ProxyWithContext, nil
}

// Pick returns the handlers of the routes in only, or an error naming one
// that has none.
func Pick(all []httpapi.Route, only ...routes.Route) ([]httpapi.Route, error) {
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
	return picked, nil
}
