// Package tick declares the campaign-tick function, the one-minute tick
// that starts scheduled campaigns, and builds the send engine's starter
// it runs, which the owner's approvals call too to start or schedule a
// campaign. Apart from campaigns/sender so that the tick links no SES
// client.
package tick

import (
	"context"
	"log/slog"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/sesame-mail/sesame/internal/api/sdk"
	"github.com/sesame-mail/sesame/internal/api/wire"
	"github.com/sesame-mail/sesame/internal/campaign/engine"
	"github.com/sesame-mail/sesame/internal/config"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/campaigndb"
	"github.com/sesame-mail/sesame/internal/dynamo/listmaildb"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/routes"
)

// CampaignTick starts the scheduled campaigns that are due; its schedule
// invokes it every minute.
var CampaignTick = wire.Function[config.CampaignTick]{
	Name: routes.CampaignTick.Function,
	AWS:  sdk.Load,
	Build: func(_ context.Context, cfg config.CampaignTick, env wire.Env) (any, error) {
		t := dynamo.Open(env.AWS, cfg.Table)
		s := NewStarter(t, &campaigndb.Campaigns{Table: t}, cfg.SendsQueue, queue.SendCalls(sqs.NewFromConfig(env.AWS)), env.Logger)
		return Tick(s, env.Logger), nil
	},
}

// Tick is the tick's handler: it starts the due campaigns and logs how
// many; an error makes the schedule's invocation fail (and retry).
func Tick(s *engine.Starter, logger *slog.Logger) func(context.Context) error {
	return func(ctx context.Context) error {
		n, err := s.Tick(ctx)
		if n > 0 {
			logger.InfoContext(ctx, "scheduled campaigns started", slog.Int("started", n))
		}
		return err
	}
}

// NewStarter is the starter over t: chunks onto the sends queue, due
// starts in the table.
func NewStarter(t *dynamo.Table, campaigns engine.Campaigns, q config.SendsQueue, c queue.BatchSendAPI, logger *slog.Logger) *engine.Starter {
	return &engine.Starter{
		Campaigns: campaigns, Queue: &queue.BatchPublisher{SQS: c, QueueURL: q.SendsQueueURL},
		Due: &listmaildb.ListSends{Table: t}, Now: t.Time, Logger: logger,
	}
}
