// Package runner declares and builds the automation runner, the consumer
// of the automations queue (the automation-runner function; the tick is
// automations/tick).
package runner

import (
	"context"
	"log/slog"

	"github.com/aws/aws-sdk-go-v2/service/sesv2"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/sesame-mail/sesame/internal/api/campaigns/sender"
	"github.com/sesame-mail/sesame/internal/api/emails/send"
	"github.com/sesame-mail/sesame/internal/api/sdk"
	"github.com/sesame-mail/sesame/internal/api/statusfeed"
	"github.com/sesame-mail/sesame/internal/api/wire"
	runs "github.com/sesame-mail/sesame/internal/automation/runner"
	"github.com/sesame-mail/sesame/internal/compose/raw"
	"github.com/sesame-mail/sesame/internal/config"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/automationdb"
	"github.com/sesame-mail/sesame/internal/dynamo/contactdb"
	"github.com/sesame-mail/sesame/internal/dynamo/listmaildb"
	"github.com/sesame-mail/sesame/internal/dynamo/suppressiondb"
	"github.com/sesame-mail/sesame/internal/dynamo/workspacedb"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/sending/capacity"
	"github.com/sesame-mail/sesame/internal/ses"
)

// AutomationRunner consumes the automations queue: one run per message.
var AutomationRunner = wire.Function[config.AutomationRunner]{
	Name: routes.AutomationRunner.Function,
	AWS:  sdk.Load,
	Build: func(_ context.Context, cfg config.AutomationRunner, env wire.Env) (any, error) {
		t := dynamo.Open(env.AWS, cfg.Table)
		client := sesv2.NewFromConfig(env.AWS, send.SESBound(cfg.SDK))
		q := sqs.NewFromConfig(env.AWS)
		r := NewRunner(t, cfg, Deps{Transport: &ses.Client{API: client}, Account: ses.Account{API: client}, Queue: q, Visibility: q, Webhooks: q, Logger: env.Logger})
		return queue.NewConsumer(r.Handle), nil
	},
}

// Deps are what the runner is built over besides the table.
type Deps struct {
	Transport sending.Transport
	// Account reads the SES rate the pace shares (sender.Account).
	Account capacity.RateSource
	Queue   queue.SendAPI
	// Visibility postpones a failed wake-up (queue.Backoff on the
	// automations queue).
	Visibility queue.VisibilityAPI
	Webhooks   queue.BatchSendAPI
	Logger     *slog.Logger
}

// NewRunner is the runner over t: automation emails through d.Transport
// with the configuration set of the workspace's tracking mode,
// unsubscribe links on the public URL, a refusal recorded by the status
// pipeline, short waits as delayed messages on the automations queue.
func NewRunner(t *dynamo.Table, cfg config.AutomationRunner, d Deps) *runs.Runner {
	return &runs.Runner{
		Runs:       &automationdb.AutomationRuns{Table: t},
		Audience:   audience{&contactdb.Contacts{Table: t}, &suppressiondb.Suppressions{Table: t}},
		Mail:       &listmaildb.ListSends{Table: t},
		Workspaces: workspaces{&workspacedb.Workspaces{Table: t}, &workspacedb.Senders{Table: t}},
		Queue:      &queue.Publisher{SQS: d.Queue, QueueURL: cfg.AutomationsQueueURL},
		Transport:  d.Transport,
		Pacer:      sender.Pacer(t, cfg.Pacing, d.Account),
		ConfigSets: send.ConfigSets(cfg.SES),
		Links:      send.UnsubscribeLinks(cfg.Unsubscribing, cfg.PublicURL),
		Build:      raw.Build,
		Failures:   statusfeed.Processor(t, cfg.WebhooksQueue, d.Webhooks, d.Logger),
		Backoff:    queue.Backoff(d.Visibility, cfg.AutomationsQueueURL, queue.Automations),
		Logger:     d.Logger,
		Now:        t.Time,
	}
}

// audience reads a contact and its address's do-not-send entry.
type audience struct {
	*contactdb.Contacts
	*suppressiondb.Suppressions
}

// workspaces reads a workspace and its senders.
type workspaces struct {
	*workspacedb.Workspaces
	*workspacedb.Senders
}
