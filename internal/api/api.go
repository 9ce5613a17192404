// Package api assembles the /api/v1 routes from the domain handlers. The
// Lambda functions serve one route each and the dev server serves them all,
// through the same handlers.
package api

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/sesame-mail/sesame/internal/config"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/routes"
)

// Deps is what the route handlers need, built once per process.
type Deps struct {
	Store   *dynamo.Store
	Cursors httpapi.Cursors
	Logger  *slog.Logger
}

// Routes returns every implemented route with its handler.
func Routes(d Deps) []httpapi.Route {
	emails := email.Handlers{Store: d.Store, Cursors: d.Cursors}
	return emails.Routes()
}

// Handler serves the given routes (all of them when none is named) through
// the API core: request id, auth, scopes, rate limit, errors, logs.
func Handler(d Deps, only ...routes.Route) (http.Handler, error) {
	srv := &httpapi.Server{Auth: d.Store, Logger: d.Logger}
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
	ctx := context.Background()
	if err := lambdaMain(ctx, rt); err != nil {
		slog.Error("function failed to start", slog.String("function", rt.Function), slog.Any("err", err))
		os.Exit(1)
	}
}

func lambdaMain(ctx context.Context, rt routes.Route) error {
	var cfg config.API
	if err := config.Load(ctx, &cfg); err != nil {
		return err
	}
	awsCfg, err := awsconfig.LoadDefaultConfig(ctx)
	if err != nil {
		return fmt.Errorf("aws config: %w", err)
	}
	logger := NewLogger(cfg.LogLevel)
	deps := Deps{
		Store:   &dynamo.Store{DB: dynamodb.NewFromConfig(awsCfg), Table: cfg.Table},
		Cursors: httpapi.Cursors{Secret: []byte(cfg.CursorSecret)},
		Logger:  logger,
	}
	h, err := Handler(deps, rt)
	if err != nil {
		return err
	}
	lambda.StartWithOptions(httpadapter.New(h).ProxyWithContext, lambda.WithContext(ctx))
	return nil
}
