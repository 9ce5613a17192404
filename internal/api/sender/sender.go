// Package sender builds the send engine of campaigns: the campaign
// sender that consumes the sends queue, and the starter whose tick starts
// scheduled campaigns. The functions wire them over the campaign
// repository (dynamo.Campaigns) they are given.
package sender

import (
	"log/slog"

	"github.com/sesame-mail/sesame/internal/api/pipeline"
	"github.com/sesame-mail/sesame/internal/campaign/engine"
	"github.com/sesame-mail/sesame/internal/compose/raw"
	"github.com/sesame-mail/sesame/internal/config"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/unsubscribe"
)

// Thresholds are the breaker's thresholds: the configured ones, each
// unset one at its default.
func Thresholds(b config.Breaker) engine.Thresholds {
	th := engine.DefaultThresholds
	if b.BreakerBounceRate > 0 {
		th.BounceRate = b.BreakerBounceRate
	}
	if b.BreakerComplaintRate > 0 {
		th.ComplaintRate = b.BreakerComplaintRate
	}
	if b.BreakerMinSample > 0 {
		th.MinSample = b.BreakerMinSample
	}
	if b.BreakerWindow > 0 {
		th.Window = b.BreakerWindow
	}
	return th
}

// Rate is the pace's source: the configured rate, else the account's.
func Rate(p config.Pacing, account engine.RateSource) engine.RateSource {
	if p.MaxSendRate > 0 {
		return engine.FixedRate(p.MaxSendRate)
	}
	return account
}

// Deps are what the sender is built over besides the table.
type Deps struct {
	Campaigns engine.Campaigns
	Transport sending.Transport
	Account   engine.RateSource
	Sends     queue.BatchSendAPI
	Webhooks  queue.BatchSendAPI
	Logger    *slog.Logger
}

// NewSender is the campaign sender over t: campaign emails through
// d.Transport with the configuration set of the workspace's tracking
// mode, unsubscribe links on the public URL, a refusal recorded by the
// status pipeline.
func NewSender(t *dynamo.Table, cfg config.CampaignSender, d Deps) *engine.Sender {
	store := &dynamo.CampaignSends{Table: t}
	return &engine.Sender{
		Campaigns: d.Campaigns, Store: store, Workspaces: &dynamo.Workspaces{Table: t}, Reputation: store,
		Pacer:      &engine.Pacer{Slots: store, Rate: Rate(cfg.Pacing, d.Account), Now: t.Now},
		Transport:  d.Transport,
		ConfigSets: sending.ConfigSets{Full: cfg.ConfigSetFull, Essential: cfg.ConfigSetEssential, Off: cfg.ConfigSetOff},
		Build:      raw.Build,
		Links:      unsubscribe.Links{BaseURL: cfg.PublicURL.PublicURL, Signer: unsubscribe.Signer{Secret: []byte(cfg.UnsubscribeSecret)}},
		Failures:   pipeline.Processor(t, cfg.WebhooksQueue, d.Webhooks, d.Logger),
		Queue:      &queue.BatchPublisher{SQS: d.Sends, QueueURL: cfg.SendsQueueURL},
		Breaker:    Thresholds(cfg.Breaker),
		Logger:     d.Logger,
		Now:        t.Now,
	}
}

// NewStarter is the starter over t: chunks onto the sends queue, due
// starts in the table.
func NewStarter(t *dynamo.Table, campaigns engine.Campaigns, q config.SendsQueue, c queue.BatchSendAPI, logger *slog.Logger) *engine.Starter {
	return &engine.Starter{
		Campaigns: campaigns, Queue: &queue.BatchPublisher{SQS: c, QueueURL: q.SendsQueueURL},
		Due: &dynamo.CampaignSends{Table: t}, Now: t.Now, Logger: logger,
	}
}
