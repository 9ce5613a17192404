// Package statusfeed declares the consumer of the ses-events queue (the
// status function) and builds the status processor: it moves emails
// through their statuses and fans their events out to the webhooks queue.
// Every sender records a failed send with it too.
package statusfeed

import (
	"context"
	"log/slog"

	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/sesame-mail/sesame/internal/api/sdk"
	"github.com/sesame-mail/sesame/internal/api/wire"
	"github.com/sesame-mail/sesame/internal/config"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/statusdb"
	"github.com/sesame-mail/sesame/internal/dynamo/webhookdb"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/status"
	"github.com/sesame-mail/sesame/internal/webhook"
	"github.com/sesame-mail/sesame/internal/webhook/endpointcache"
)

// Status consumes the ses-events queue.
var Status = wire.Function[config.Status]{
	Name: routes.Status.Function,
	AWS:  sdk.Load,
	Build: func(_ context.Context, cfg config.Status, env wire.Env) (any, error) {
		t := dynamo.Open(env.AWS, cfg.Table)
		q := sqs.NewFromConfig(env.AWS)
		p := Processor(t, cfg.WebhooksQueue, q, env.Logger)
		// Once per instance: each workspace's endpoints read once a second.
		p.Publisher = cachedFanout(t, cfg.WebhooksQueue, q)
		return queue.NewConsumer(p.Handle), nil
	},
}

// Processor is the status pipeline over t: each event changes the email,
// feeds the events list and counters, and is fanned out to the webhooks
// queue (fanout).
func Processor(t *dynamo.Table, q config.WebhooksQueue, c queue.BatchSendAPI, logger *slog.Logger) *status.Processor {
	return &status.Processor{Store: &statusdb.Statuses{Table: t}, Publisher: fanout(t, q, c), Logger: logger}
}

// fanout puts one webhook job per enabled endpoint subscribed to an
// event's type on the webhooks queue.
func fanout(t *dynamo.Table, q config.WebhooksQueue, c queue.BatchSendAPI) *webhook.Fanout {
	return &webhook.Fanout{Endpoints: &webhookdb.Webhooks{Table: t}, Queue: &queue.BatchPublisher{SQS: c, QueueURL: q.WebhooksQueueURL}}
}

// cachedFanout is fanout reading each workspace's endpoints at most once
// an endpointcache.TTL.
func cachedFanout(t *dynamo.Table, q config.WebhooksQueue, c queue.BatchSendAPI) *webhook.Fanout {
	f := fanout(t, q, c)
	f.Endpoints = endpointcache.New(endpointcache.TTL, nil).Lister(f.Endpoints)
	return f
}
