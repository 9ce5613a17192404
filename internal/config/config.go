// Package config is the typed environment configuration of Sesame's
// functions and tools, one struct per kind of process.
package config

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"time"

	"github.com/sethvargo/go-envconfig"
)

// API configures a function that serves /api/v1 routes.
type API struct {
	// Table is the DynamoDB table name.
	Table string `env:"SESAME_TABLE, required"`
	// CursorSecret signs pagination cursors; API functions require it
	// (LambdaMain checks), queue consumers have none.
	CursorSecret string `env:"SESAME_CURSOR_SECRET"`
	// LogLevel is debug, info, warn or error.
	LogLevel slog.Level `env:"LOG_LEVEL, default=info"`
	// ReviewQueueURL is the queue of held emails awaiting the security review.
	ReviewQueueURL string `env:"SESAME_REVIEW_QUEUE_URL"`
	// ConfigSets are the SES configuration sets per open-tracking mode.
	ConfigSetFull      string `env:"SESAME_CONFIG_SET_FULL"`
	ConfigSetEssential string `env:"SESAME_CONFIG_SET_ESSENTIAL"`
	ConfigSetOff       string `env:"SESAME_CONFIG_SET_OFF"`
	// WebhooksQueueURL is the queue of webhook deliveries.
	WebhooksQueueURL string `env:"SESAME_WEBHOOKS_QUEUE_URL"`
	// WebhookTimeout bounds one delivery POST; 0 means 10 s.
	WebhookTimeout time.Duration `env:"SESAME_WEBHOOK_TIMEOUT"`
	// WebhookAllowedPrefixes lets webhook deliveries reach these networks
	// despite the SSRF guard. The local stack allows loopback; production
	// never sets it.
	WebhookAllowedPrefixes []netip.Prefix `env:"SESAME_WEBHOOK_ALLOWED_PREFIXES"`
}

// Console configures the operator console (cmd/sesame). Each variable
// has a flag of the same meaning, and a flag given wins.
type Console struct {
	// Table is the stack's DynamoDB table (its TableName output). No
	// default: a guessed name would act on the wrong table. `sesame dev`
	// names its own.
	Table string `env:"SESAME_TABLE"`
	// Region is the AWS region; empty leaves it to the AWS profile.
	Region string `env:"AWS_REGION"`
	// WorkspaceID is the workspace of the commands that act on one.
	WorkspaceID string `env:"SESAME_WORKSPACE_ID"`
	// ReviewQueueURL is where held clear/deny queue the owner's verdict:
	// the review function releases held email (stack output ReviewQueueUrl).
	ReviewQueueURL string `env:"SESAME_REVIEW_QUEUE_URL"`
	// ConfigSetFull is the SES configuration set a new domain identity
	// uses by default.
	ConfigSetFull string `env:"SESAME_CONFIG_SET_FULL"`
}

// ErrNoTable is the console's answer to a command that needs the table
// when none is named.
var ErrNoTable = errors.New("no table: set SESAME_TABLE or pass --table (the stack's TableName output)")

// RequireTable returns the table, or ErrNoTable.
func (c Console) RequireTable() (string, error) {
	if c.Table == "" {
		return "", ErrNoTable
	}
	return c.Table, nil
}

// Load fills cfg from the process environment.
func Load(ctx context.Context, cfg any) error {
	return LoadFrom(ctx, envconfig.OsLookuper(), cfg)
}

// LoadOverriding fills cfg from the process environment, except that a
// variable named in overrides takes that value instead (the console's
// flags, keyed by the variable each stands for).
func LoadOverriding(ctx context.Context, overrides map[string]string, cfg any) error {
	return loadOverriding(ctx, overrides, envconfig.OsLookuper(), cfg)
}

func loadOverriding(ctx context.Context, overrides map[string]string, env envconfig.Lookuper, cfg any) error {
	return LoadFrom(ctx, envconfig.MultiLookuper(envconfig.MapLookuper(overrides), env), cfg)
}

// LoadFrom fills cfg from l (tests pass a map).
func LoadFrom(ctx context.Context, l envconfig.Lookuper, cfg any) error {
	if err := envconfig.ProcessWith(ctx, &envconfig.Config{Target: cfg, Lookuper: l}); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	return nil
}
