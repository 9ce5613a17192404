// Package pipeline declares the functions of the delivery pipeline and
// builds its services: the status processor that moves emails through
// their statuses and fans its events out to the webhooks queue (the send
// path records a failed send with it too), and the webhook dispatcher:
// signed POSTs through the SSRF guard, each failure retried later by
// lengthening its message's visibility.
package pipeline

import (
	"context"
	"log/slog"

	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/sesame-mail/sesame/internal/api/sdk"
	"github.com/sesame-mail/sesame/internal/api/wire"
	"github.com/sesame-mail/sesame/internal/config"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/status"
	"github.com/sesame-mail/sesame/internal/webhook"
	"github.com/sesame-mail/sesame/internal/webhook/endpointcache"
	"github.com/sesame-mail/sesame/internal/webhook/post"
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

// WebhookDispatch consumes the webhooks queue.
var WebhookDispatch = wire.Function[config.Dispatch]{
	Name: routes.WebhookDispatch.Function,
	AWS:  sdk.Load,
	Build: func(_ context.Context, cfg config.Dispatch, env wire.Env) (any, error) {
		// Once per instance: each endpoint read once a second.
		store := endpointcache.New(endpointcache.TTL, nil).Store(&dynamo.Webhooks{Table: dynamo.Open(env.AWS, cfg.Table)})
		d := dispatcher(store, cfg.Delivery, cfg.WebhooksQueue, sqs.NewFromConfig(env.AWS), env.Logger)
		return queue.NewConsumer(d.Handle), nil
	},
}

// Processor is the status pipeline over t: each event changes the email,
// feeds the events list and counters, and is fanned out to the webhooks
// queue (fanout).
func Processor(t *dynamo.Table, q config.WebhooksQueue, c queue.BatchSendAPI, logger *slog.Logger) *status.Processor {
	return &status.Processor{Store: &dynamo.Statuses{Table: t}, Publisher: fanout(t, q, c), Logger: logger}
}

// fanout puts one webhook job per enabled endpoint subscribed to an
// event's type on the webhooks queue.
func fanout(t *dynamo.Table, q config.WebhooksQueue, c queue.BatchSendAPI) *webhook.Fanout {
	return &webhook.Fanout{Endpoints: &dynamo.Webhooks{Table: t}, Queue: &queue.BatchPublisher{SQS: c, QueueURL: q.WebhooksQueueURL}}
}

// cachedFanout is fanout reading each workspace's endpoints at most once
// an endpointcache.TTL.
func cachedFanout(t *dynamo.Table, q config.WebhooksQueue, c queue.BatchSendAPI) *webhook.Fanout {
	f := fanout(t, q, c)
	f.Endpoints = endpointcache.New(endpointcache.TTL, nil).Lister(f.Endpoints)
	return f
}

// Dispatcher delivers the webhook jobs of queue q, recording every
// attempt in t.
func Dispatcher(t *dynamo.Table, d config.Delivery, q config.WebhooksQueue, c queue.VisibilityAPI, logger *slog.Logger) *webhook.Dispatcher {
	return dispatcher(&dynamo.Webhooks{Table: t}, d, q, c, logger)
}

// dispatcher is Dispatcher over store.
func dispatcher(store webhook.DispatchStore, d config.Delivery, q config.WebhooksQueue, c queue.VisibilityAPI, logger *slog.Logger) *webhook.Dispatcher {
	return webhook.NewDispatcher(store,
		post.NewClient(post.Options{Timeout: d.WebhookTimeout, AllowedPrefixes: d.WebhookAllowedPrefixes}),
		&queue.Visibility{SQS: c, QueueURL: q.WebhooksQueueURL},
		webhook.DispatcherOptions{Timeout: d.WebhookTimeout, Logger: logger})
}
