// Package review declares the consumer of the review queue (the review
// function): held email is sent once cleared, or recorded as failed.
package review

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/sesame-mail/sesame/internal/api/emails/send"
	"github.com/sesame-mail/sesame/internal/api/sdk"
	"github.com/sesame-mail/sesame/internal/api/statusfeed"
	"github.com/sesame-mail/sesame/internal/api/wire"
	"github.com/sesame-mail/sesame/internal/config"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/sendingdb"
	"github.com/sesame-mail/sesame/internal/dynamo/suppressiondb"
	"github.com/sesame-mail/sesame/internal/dynamo/workspacedb"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/sending"
)

// Review consumes the review queue.
var Review = wire.Function[config.Review]{
	Name: routes.Review.Function,
	AWS:  sdk.Load,
	Build: func(_ context.Context, cfg config.Review, env wire.Env) (any, error) {
		t := dynamo.Open(env.AWS, cfg.Table)
		failures := statusfeed.Processor(t, cfg.WebhooksQueue, sqs.NewFromConfig(env.AWS), env.Logger)
		// No review queue: the review sends or fails, it never holds.
		svc := send.Service(t, cfg.SES, send.NewSES(env.AWS, cfg.SDK), nil, failures, env.Logger)
		return queue.NewConsumer(Reviewer(t, svc).Handle), nil
	},
}

// Reviewer reviews the email held in t and releases it through svc.
func Reviewer(t *dynamo.Table, svc *sending.Service) *sending.Reviewer {
	return &sending.Reviewer{Held: &sendingdb.Held{Table: t}, Workspaces: &workspacedb.Workspaces{Table: t}, Suppressions: &suppressiondb.Suppressions{Table: t}, Service: svc}
}
