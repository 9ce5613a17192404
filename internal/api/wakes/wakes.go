// Package wakes declares and builds the automation tick: every minute it
// wakes the runs whose long wait ended (the runner is internal/api/runs;
// apart so the tick links no SES client).
package wakes

import (
	"context"
	"encoding/json"
	"log/slog"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"golang.org/x/sync/errgroup"

	"github.com/sesame-mail/sesame/internal/api/sdk"
	"github.com/sesame-mail/sesame/internal/api/wire"
	"github.com/sesame-mail/sesame/internal/automation"
	"github.com/sesame-mail/sesame/internal/config"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/sending"
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
func NewTick(t *dynamo.Table, q config.AutomationsQueue, r config.ReviewQueue, c queue.BatchSendAPI) *automation.Tick {
	return &automation.Tick{
		Wakes: &dynamo.AutomationRuns{Table: t},
		Queue: BatchWaker{
			Queue:  &queue.BatchPublisher{SQS: c, QueueURL: q.AutomationsQueueURL},
			Review: &queue.BatchPublisher{SQS: c, QueueURL: r.ReviewQueueURL},
		},
		Now: t.Time,
	}
}

// Tick is the tick's handler: an error makes the schedule's invocation
// fail (and retry).
func Tick(t *automation.Tick, logger *slog.Logger) func(context.Context) error {
	return func(ctx context.Context) error {
		n, err := t.Run(ctx)
		if n > 0 {
			logger.InfoContext(ctx, "automation runs woken", slog.Int("woken", n))
		}
		return err
	}
}

// BatchWaker puts wake-ups on the automations queue at once, and those
// of scheduled emails on the review queue.
type BatchWaker struct{ Queue, Review *queue.BatchPublisher }

// wakeBatch is SQS's most messages a SendMessageBatch holds; wakeSenders
// is how many the waker sends at once: a tick sweeping a minute of 1,000
// runs a second (60,000 wake-ups) sends 6,000 batches, 48 s one after the
// other at 8 ms each, and the tick has 30 s.
const (
	wakeBatch   = 10
	wakeSenders = 16
)

func (w BatchWaker) WakeAll(ctx context.Context, ms []automation.WakeMessage) error {
	bodies := make([][]byte, 0, len(ms))
	var due [][]byte
	for _, m := range ms {
		if m.EmailID != "" {
			b, err := json.Marshal(sending.ReviewMessage{WorkspaceID: m.WorkspaceID, EmailID: m.EmailID, Scheduled: true})
			if err != nil {
				return err
			}
			due = append(due, b)
			continue
		}
		b, err := json.Marshal(m)
		if err != nil {
			return err
		}
		bodies = append(bodies, b)
	}
	if err := enqueueAll(ctx, w.Review, due); err != nil {
		return err
	}
	return enqueueAll(ctx, w.Queue, bodies)
}

// enqueueAll sends bodies to q in batches, several at once.
func enqueueAll(ctx context.Context, q *queue.BatchPublisher, bodies [][]byte) error {
	if len(bodies) == 0 {
		return nil
	}
	if len(bodies) <= wakeBatch {
		return q.EnqueueAll(ctx, bodies)
	}
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(wakeSenders)
	for start := 0; start < len(bodies); start += wakeBatch {
		batch := bodies[start:min(start+wakeBatch, len(bodies))]
		g.Go(func() error { return q.EnqueueAll(ctx, batch) })
	}
	return g.Wait()
}
