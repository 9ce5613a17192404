// Package send declares the functions of the send routes (send,
// send-batch) and builds the send path that every sender shares (the
// review consumer, the campaign sender, the automation runner): the SES
// client, attachment fetches, the review queue and the failure record
// with its webhook fan-out.
package send

import (
	"context"
	"log/slog"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sesv2"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/sesame-mail/sesame/internal/api/sdk"
	"github.com/sesame-mail/sesame/internal/api/statusfeed"
	"github.com/sesame-mail/sesame/internal/api/templates"
	"github.com/sesame-mail/sesame/internal/api/wire"
	"github.com/sesame-mail/sesame/internal/attachment/fetch"
	"github.com/sesame-mail/sesame/internal/compose/raw"
	"github.com/sesame-mail/sesame/internal/config"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/accountdb"
	"github.com/sesame-mail/sesame/internal/dynamo/apikeydb"
	"github.com/sesame-mail/sesame/internal/dynamo/sendingdb"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/sending/contextcache"
	"github.com/sesame-mail/sesame/internal/sending/sendinghttp"
	"github.com/sesame-mail/sesame/internal/ses"
	"github.com/sesame-mail/sesame/internal/unsubscribe"
)

// The send routes' functions.
var (
	Send      = route(routes.Send)
	SendBatch = route(routes.SendBatch)
)

func route(rt routes.Route) wire.Function[config.Send] {
	return wire.Function[config.Send]{Name: rt.Function, AWS: sdk.Load,
		Build: func(_ context.Context, cfg config.Send, env wire.Env) (any, error) {
			t := dynamo.Open(env.AWS, cfg.Table)
			q := sqs.NewFromConfig(env.AWS)
			svc := Service(t, cfg.SES, NewSES(env.AWS, cfg.SDK), &queue.Publisher{SQS: q, QueueURL: cfg.ReviewQueueURL},
				statusfeed.Processor(t, cfg.WebhooksQueue, q, env.Logger), env.Logger)
			// Once per instance: what its sends may read a second late.
			svc.Store = contextcache.New(svc.Store, contextcache.TTL, nil, &sendingdb.Sends{Table: t})
			return wire.Route(env.Logger, &apikeydb.Keys{Table: t}, rt, sendinghttp.Handlers{Service: svc}.Routes())
		}}
}

// SESBound is the option of an SES client built from a wire.Bound
// config: a send carries up to 40 MB and SES may take its time to accept
// it, so the call runs within b's SESCallTimeout and its one attempt waits
// as long; the short attempts of the other services would cut it and
// could retry it into a second copy of the email.
func SESBound(b config.SDK) func(*sesv2.Options) {
	d := b.SDKBounds().SESCallTimeout
	return func(o *sesv2.Options) { o.HTTPClient, o.APIOptions = wire.LongCall(o.HTTPClient, o.APIOptions, d) }
}

// NewSES is the SES client of a sending function, its calls bounded by b
// (SESBound).
func NewSES(cfg aws.Config, b config.SDK) *ses.Client {
	return &ses.Client{API: sesv2.NewFromConfig(cfg, SESBound(b))}
}

// Service is the send path over t: the send context and new emails in
// the table, attachments fetched by URL, the message sent through
// transport with the configuration set of its tracking mode. Held email
// goes to review; a send that fails is recorded by failures (the status
// pipeline: feed, counter, webhooks).
func Service(t *dynamo.Table, sets config.SES, transport sending.Transport, review sending.Enqueuer, failures sending.FailureRecorder, logger *slog.Logger) *sending.Service {
	return &sending.Service{
		Store:       &sendingdb.Sends{Table: t},
		Transport:   transport,
		Attachments: fetch.New(fetch.Options{}),
		Build:       raw.Build,
		Review:      review,
		Failures:    failures,
		ConfigSets:  ConfigSets(sets),
		Templates:   templates.Service(t),
		Connections: &accountdb.Owners{Table: t},
		Logger:      logger,
	}
}

// ConfigSets are the configured SES configuration sets, one per tracking
// mode.
func ConfigSets(sets config.SES) sending.ConfigSets {
	return sending.ConfigSets{Full: sets.ConfigSetFull, Essential: sets.ConfigSetEssential, Off: sets.ConfigSetOff}
}

// UnsubscribeLinks are the unsubscribe links of list mail: on the public
// URL, signed with the configured secret.
func UnsubscribeLinks(u config.Unsubscribing, p config.PublicURL) unsubscribe.Links {
	return unsubscribe.Links{BaseURL: p.PublicURL, Signer: unsubscribe.Signer{Secret: []byte(u.UnsubscribeSecret)}}
}
