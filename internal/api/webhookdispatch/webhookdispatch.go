// Package webhookdispatch declares the consumer of the webhooks queue (the
// webhook-dispatch function) and builds the dispatcher: signed POSTs
// through the SSRF guard, each failure retried later by lengthening its
// message's visibility.
package webhookdispatch

import (
	"context"
	"log/slog"

	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/sesame-mail/sesame/internal/api/sdk"
	"github.com/sesame-mail/sesame/internal/api/wire"
	"github.com/sesame-mail/sesame/internal/config"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/webhookdb"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/webhook"
	"github.com/sesame-mail/sesame/internal/webhook/endpointcache"
	"github.com/sesame-mail/sesame/internal/webhook/post"
)

// WebhookDispatch consumes the webhooks queue.
var WebhookDispatch = wire.Function[config.Dispatch]{
	Name: routes.WebhookDispatch.Function,
	AWS:  sdk.Load,
	Build: func(_ context.Context, cfg config.Dispatch, env wire.Env) (any, error) {
		// Once per instance: each endpoint read once a second.
		store := endpointcache.New(endpointcache.TTL, nil).Store(&webhookdb.Webhooks{Table: dynamo.Open(env.AWS, cfg.Table)})
		d := dispatcher(store, cfg.Delivery, cfg.WebhooksQueue, sqs.NewFromConfig(env.AWS), env.Logger)
		return queue.NewConsumer(d.Handle), nil
	},
}

// Dispatcher delivers the webhook jobs of queue q, recording every
// attempt in t.
func Dispatcher(t *dynamo.Table, d config.Delivery, q config.WebhooksQueue, c queue.VisibilityAPI, logger *slog.Logger) *webhook.Dispatcher {
	return dispatcher(&webhookdb.Webhooks{Table: t}, d, q, c, logger)
}

// dispatcher is Dispatcher over store.
func dispatcher(store webhook.DispatchStore, d config.Delivery, q config.WebhooksQueue, c queue.VisibilityAPI, logger *slog.Logger) *webhook.Dispatcher {
	return webhook.NewDispatcher(store,
		post.NewClient(post.Options{Timeout: d.WebhookTimeout, AllowedPrefixes: d.WebhookAllowedPrefixes}),
		&queue.Visibility{SQS: c, QueueURL: q.WebhooksQueueURL},
		webhook.DispatcherOptions{Timeout: d.WebhookTimeout, Logger: logger})
}
