// Package config is the typed environment configuration of Sesame's
// functions and tools, one struct per kind of process.
package config

import (
	"context"
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

// Load fills cfg from the process environment.
func Load(ctx context.Context, cfg any) error {
	return LoadFrom(ctx, envconfig.OsLookuper(), cfg)
}

// LoadFrom fills cfg from l (tests pass a map).
func LoadFrom(ctx context.Context, l envconfig.Lookuper, cfg any) error {
	if err := envconfig.ProcessWith(ctx, &envconfig.Config{Target: cfg, Lookuper: l}); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	return nil
}
