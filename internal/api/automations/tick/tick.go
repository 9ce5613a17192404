// Package tick declares and builds the automation tick (the
// automation-tick function): every minute it wakes the runs whose long
// wait ended (the runner is automations/runner; apart so the tick links
// no SES client).
package tick

import (
	"context"
	"log/slog"

	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/sesame-mail/sesame/internal/api/sdk"
	"github.com/sesame-mail/sesame/internal/api/wire"
	"github.com/sesame-mail/sesame/internal/automation"
	"github.com/sesame-mail/sesame/internal/automation/runner"
	"github.com/sesame-mail/sesame/internal/config"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/automationdb"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/routes"
)

// AutomationTick wakes the runs whose long wait ended; its schedule
// invokes it every minute.
var AutomationTick = wire.Function[config.AutomationTick]{
	Name: routes.AutomationTick.Function,
	AWS:  sdk.Load,
	Build: func(_ context.Context, cfg config.AutomationTick, env wire.Env) (any, error) {
		t := dynamo.Open(env.AWS, cfg.Table)
		return Tick(NewTick(t, cfg.AutomationsQueue, cfg.ReviewQueue, sqs.NewFromConfig(env.AWS)), env.Logger), nil
	},
}

// NewTick is the tick over t, waking runs on the automations queue and
// handing due scheduled emails to the review queue.
func NewTick(t *dynamo.Table, q config.AutomationsQueue, r config.ReviewQueue, c queue.BatchSendAPI) *runner.Tick {
	return &runner.Tick{
		Wakes:  &automationdb.AutomationRuns{Table: t},
		Queue:  &queue.BatchPublisher{SQS: c, QueueURL: q.AutomationsQueueURL, Senders: automation.WakeSenders},
		Review: &queue.BatchPublisher{SQS: c, QueueURL: r.ReviewQueueURL, Senders: automation.WakeSenders},
		Now:    t.Time,
	}
}

// Tick is the tick's handler: an error makes the schedule's invocation
// fail (and retry).
func Tick(t *runner.Tick, logger *slog.Logger) func(context.Context) error {
	return func(ctx context.Context) error {
		n, err := t.Run(ctx)
		if n > 0 {
			logger.InfoContext(ctx, "automation runs woken", slog.Int("woken", n))
		}
		return err
	}
}
