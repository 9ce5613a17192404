package wire_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/sethvargo/go-envconfig"

	"github.com/sesame-mail/sesame/internal/api/wire"
	"github.com/sesame-mail/sesame/internal/config"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/routes"
)

// getEmail is a function that reads the table, built by the tests.
func getEmail(build func(config.Read, wire.Env) (any, error)) wire.Function[config.Read] {
	return wire.Function[config.Read]{
		Name: "get-email",
		AWS:  func(context.Context) (aws.Config, error) { return aws.Config{Region: "from-the-loader"}, nil },
		Build: func(_ context.Context, cfg config.Read, env wire.Env) (any, error) {
			return build(cfg, env)
		},
	}
}

// A function that lacks a variable does not start: it says why, naming
// itself and the variable, and exits with an error before building
// anything.
func TestMainRefusesToStart(t *testing.T) {
	if os.Getenv("WIRE_TEST_MAIN") == "1" {
		wire.Main(getEmail(func(config.Read, wire.Env) (any, error) {
			panic("built without its config")
		}))
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestMainRefusesToStart$")
	cmd.Env = []string{"WIRE_TEST_MAIN=1"} // no SESAME_TABLE
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("exit: %v, want status 1; output:\n%s", err, out)
	}
	for _, want := range []string{"function failed to start", "function=get-email", `err="config: SESAME_TABLE is required by get-email"`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// Handler builds from the checked config, with the log level it names and
// the SDK configuration of the function's loader, or of WithAWS's.
func TestHandler(t *testing.T) {
	ctx := t.Context()
	env := envconfig.MapLookuper(map[string]string{"SESAME_TABLE": "t", "LOG_LEVEL": "warn"})
	var got config.Read
	var gotEnv wire.Env
	f := getEmail(func(cfg config.Read, env wire.Env) (any, error) {
		got, gotEnv = cfg, env
		return "handler", nil
	})
	h, err := f.Handler(ctx, env)
	if err != nil || h != "handler" {
		t.Fatalf("Handler = %v, %v", h, err)
	}
	if got.Table != "t" || gotEnv.AWS.Region != "from-the-loader" {
		t.Errorf("built with %+v, AWS region %q", got, gotEnv.AWS.Region)
	}
	if gotEnv.Logger.Enabled(ctx, slog.LevelInfo) || !gotEnv.Logger.Enabled(ctx, slog.LevelWarn) {
		t.Error("the logger is not at LOG_LEVEL=warn")
	}

	other := func(context.Context) (aws.Config, error) { return aws.Config{Region: "from-the-console"}, nil }
	if _, err := f.WithAWS(other).Handler(ctx, env); err != nil || gotEnv.AWS.Region != "from-the-console" {
		t.Errorf("WithAWS: region %q, err %v", gotEnv.AWS.Region, err)
	}
	failing := func(context.Context) (aws.Config, error) { return aws.Config{}, errors.New("no profile") }
	if _, err := f.WithAWS(failing).Handler(ctx, env); err == nil || err.Error() != "aws config: no profile" {
		t.Errorf("failing loader: err = %v", err)
	}

	// A function that calls no AWS service loads no SDK configuration,
	// whatever WithAWS is given.
	public := wire.Function[config.Public]{Name: "get-openapi", Build: func(_ context.Context, _ config.Public, env wire.Env) (any, error) {
		gotEnv = env
		return "public", nil
	}}
	if _, err := public.WithAWS(failing).Handler(ctx, envconfig.MapLookuper(nil)); err != nil || gotEnv.AWS.Region != "" {
		t.Errorf("public: region %q, err %v", gotEnv.AWS.Region, err)
	}
}

// Route serves the one route asked for, and refuses one the handlers do
// not serve.
func TestRoute(t *testing.T) {
	ok := func(http.ResponseWriter, *http.Request) error { return nil }
	handlers := []httpapi.Route{{Route: routes.ListEmails, Handler: ok}, {Route: routes.GetEmail, Handler: ok}}
	if _, err := wire.Route(slog.Default(), nil, routes.GetEmail, handlers); err != nil {
		t.Error(err)
	}
	if _, err := wire.Route(slog.Default(), nil, routes.Send, handlers); err == nil || !strings.Contains(err.Error(), "POST /api/v1/send has no handler") {
		t.Errorf("a route without a handler: err = %v", err)
	}
	picked, err := wire.Pick(handlers, routes.ListEmails)
	if err != nil || len(picked) != 1 || picked[0].Route != routes.ListEmails {
		t.Errorf("Pick = %v, %v", picked, err)
	}
}
