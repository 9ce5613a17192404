// Package automations declares the function of the automation event route
// (POST /automations/events): DynamoDB for the key lookup, the contact,
// the listeners and the runs' start, SQS for the runs' first wake-up. No
// SES: an event never sends by itself.
package automations

import (
	"context"
	"log/slog"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/api/sdk"
	"github.com/sesame-mail/sesame/internal/api/wire"
	"github.com/sesame-mail/sesame/internal/automation"
	"github.com/sesame-mail/sesame/internal/automation/automationhttp"
	"github.com/sesame-mail/sesame/internal/config"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/apikeydb"
	"github.com/sesame-mail/sesame/internal/dynamo/automationdb"
	"github.com/sesame-mail/sesame/internal/dynamo/contactdb"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/routes"
)

// AutomationEvents is the function of POST /automations/events.
var AutomationEvents = wire.Function[config.AutomationEvents]{
	Name: routes.AutomationEvents.Function,
	AWS:  sdk.Load,
	Build: func(_ context.Context, cfg config.AutomationEvents, env wire.Env) (any, error) {
		t := dynamo.Open(env.AWS, cfg.Table)
		h := Handlers(t, cfg.AutomationsQueue, sqs.NewFromConfig(env.AWS), env.Logger)
		return wire.Route(env.Logger, &apikeydb.Keys{Table: t}, routes.AutomationEvents, h.Routes())
	},
}

// Handlers serves the event route over t, waking started runs through q.
func Handlers(t *dynamo.Table, q config.AutomationsQueue, c queue.BatchSendAPI, logger *slog.Logger) automationhttp.Handlers {
	return automationhttp.Handlers{Trigger: &automation.Trigger{
		Store: triggerStore{&contactdb.Contacts{Table: t}, &automationdb.AutomationRuns{Table: t}, &automationdb.Automations{Table: t}},
		Queue: &queue.BatchPublisher{SQS: c, QueueURL: q.AutomationsQueueURL, Senders: automation.WakeSenders},
		NewID: newRunID, Now: t.Time, Logger: logger,
	}}
}

// triggerStore is the trigger's store: the event's contact, the run
// starts and the listeners.
type triggerStore struct {
	*contactdb.Contacts
	*automationdb.AutomationRuns
	*automationdb.Automations
}

func newRunID() (string, error) {
	id, err := uuid.NewV7()
	return id.String(), err
}
