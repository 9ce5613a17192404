// Package sender declares and builds the campaign sender, the consumer of
// the sends queue (the campaign-sender function; the starter and its tick
// are campaigns/tick).
package sender

import (
	"context"
	"log/slog"

	"github.com/aws/aws-sdk-go-v2/service/sesv2"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/sesame-mail/sesame/internal/api/emails/send"
	"github.com/sesame-mail/sesame/internal/api/sdk"
	"github.com/sesame-mail/sesame/internal/api/statusfeed"
	"github.com/sesame-mail/sesame/internal/api/wire"
	"github.com/sesame-mail/sesame/internal/campaign/engine"
	"github.com/sesame-mail/sesame/internal/compose/raw"
	"github.com/sesame-mail/sesame/internal/config"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/campaigndb"
	"github.com/sesame-mail/sesame/internal/dynamo/capacitydb"
	"github.com/sesame-mail/sesame/internal/dynamo/listmaildb"
	"github.com/sesame-mail/sesame/internal/dynamo/workspacedb"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/sending/capacity"
	"github.com/sesame-mail/sesame/internal/ses"
)

// CampaignSender consumes the sends queue: one chunk per message.
var CampaignSender = wire.Function[config.CampaignSender]{
	Name: routes.CampaignSender.Function,
	AWS:  sdk.Load,
	Build: func(_ context.Context, cfg config.CampaignSender, env wire.Env) (any, error) {
		t := dynamo.Open(env.AWS, cfg.Table)
		client := sesv2.NewFromConfig(env.AWS, send.SESBound(cfg.SDK))
		q := sqs.NewFromConfig(env.AWS)
		s := NewSender(t, cfg, Deps{
			Campaigns: &campaigndb.Campaigns{Table: t}, Transport: &ses.Client{API: client}, Account: ses.Account{API: client},
			Sends: q, Visibility: q, Webhooks: q, Logger: env.Logger,
		})
		return queue.NewConsumer(s.Handle), nil
	},
}

// Pacer shares the SES rate by cfg's shares over the table's ledger of
// send slots; the campaign sender and the automation runner pace by it.
func Pacer(t *dynamo.Table, cfg config.Pacing, account capacity.RateSource) *capacity.Pacer {
	return &capacity.Pacer{Slots: &capacitydb.Pace{Table: t}, Rate: engine.PaceRate(cfg.MaxSendRate, account), Shares: capacity.Shares(cfg.Shares()), Now: t.Time}
}

// Account is the SES account's rate through api when it can read the
// account (an SES client does; the test fakes need not), else nil.
func Account(api any) capacity.RateSource {
	if a, ok := api.(ses.AccountAPI); ok {
		return ses.Account{API: a}
	}
	return nil
}

// Deps are what the sender is built over besides the table.
type Deps struct {
	Campaigns engine.Campaigns
	Transport sending.Transport
	Account   capacity.RateSource
	Sends     queue.BatchSendAPI
	// Visibility postpones a failed chunk (queue.Backoff on the sends queue).
	Visibility queue.VisibilityAPI
	Webhooks   queue.BatchSendAPI
	Logger     *slog.Logger
}

// NewSender is the campaign sender over t: campaign emails through
// d.Transport with the configuration set of the workspace's tracking
// mode, unsubscribe links on the public URL, a refusal recorded by the
// status pipeline.
func NewSender(t *dynamo.Table, cfg config.CampaignSender, d Deps) *engine.Sender {
	store := &listmaildb.ListSends{Table: t}
	return &engine.Sender{
		Campaigns: d.Campaigns, Store: store, Workspaces: &workspacedb.Workspaces{Table: t}, Reputation: store,
		Pacer:      Pacer(t, cfg.Pacing, d.Account),
		Transport:  d.Transport,
		ConfigSets: send.ConfigSets(cfg.SES),
		Build:      raw.Build,
		Links:      send.UnsubscribeLinks(cfg.Unsubscribing, cfg.PublicURL),
		Failures:   statusfeed.Processor(t, cfg.WebhooksQueue, d.Webhooks, d.Logger),
		Queue:      &queue.BatchPublisher{SQS: d.Sends, QueueURL: cfg.SendsQueueURL},
		Backoff:    queue.Backoff(d.Visibility, cfg.SendsQueueURL, queue.Sends),
		Breaker: engine.Thresholds{
			BounceRate: cfg.BreakerBounceRate, ComplaintRate: cfg.BreakerComplaintRate,
			MinSample: cfg.BreakerMinSample, Window: cfg.BreakerWindow,
		}.OrDefaults(),
		Logger: d.Logger,
		Now:    t.Time,
	}
}
