// Package site declares the dashboard function (ANY /dashboard and
// /dashboard/{proxy+}): the owner's web dashboard over the owner service,
// signed in by a link sent through SES.
package site

import (
	"context"
	"log/slog"

	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/sesame-mail/sesame/internal/api/owners"
	"github.com/sesame-mail/sesame/internal/api/sdk"
	"github.com/sesame-mail/sesame/internal/api/templates"
	"github.com/sesame-mail/sesame/internal/api/wire"
	"github.com/sesame-mail/sesame/internal/config"
	"github.com/sesame-mail/sesame/internal/dashboard"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/repositories"
	"github.com/sesame-mail/sesame/internal/oauth"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/ses"
	"github.com/sesame-mail/sesame/internal/signin"

	"github.com/aws/aws-sdk-go-v2/service/sesv2"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// Dashboard serves every dashboard page.
var Dashboard = wire.Function[config.Dashboard]{
	Name: routes.Dashboard.Function,
	AWS:  sdk.Load,
	Build: func(_ context.Context, cfg config.Dashboard, env wire.Env) (any, error) {
		repos := repositories.New(dynamo.Open(env.AWS, cfg.Table))
		sesClient := ses.Calls(sesv2.NewFromConfig(env.AWS))
		app, err := New(Settings{
			PublicURL: cfg.PublicURL, DashboardSecret: cfg.DashboardSecret, DashboardMail: cfg.DashboardMail,
			Queues: owners.Queues{ReviewQueueURL: cfg.ReviewQueueURL, SendsQueueURL: cfg.SendsQueueURL},
		}, repos, owners.Clients{SES: sesClient, SQS: queue.SendCalls(sqs.NewFromConfig(env.AWS))}, sesClient, env.Logger, false)
		if err != nil {
			return nil, err
		}
		return httpadapter.New(app).ProxyWithContext, nil
	},
}

// Settings are the dashboard's configuration.
type Settings struct {
	config.PublicURL
	config.DashboardSecret
	config.DashboardMail
	Queues owners.Queues
}

// New builds the dashboard over repos: the owner service (its approver
// the signed-in owner), sign-in over the table, mail through mail.
// logLinks also logs each sign-in link (the local stack).
func New(cfg Settings, repos repositories.Set, c owners.Clients, mail ses.API, logger *slog.Logger, logLinks bool) (*dashboard.App, error) {
	c.Approver = dashboard.Approver{}
	c.PublicURL = cfg.PublicURL.PublicURL // the preview's and a shown email's links
	svc := owners.Service(cfg.Queues, repos, c)
	return dashboard.New(dashboard.Config{
		PublicURL: cfg.PublicURL.PublicURL, Secret: []byte(cfg.DashboardSecret.DashboardSecret), LogLinks: logLinks, Logger: logger,
	}, dashboard.Services{
		Owner:     svc,
		SignIn:    &signin.Service{Store: repos.SignIns, Owners: svc.Owners, Mailer: dashboard.Mailer{SES: mail, From: cfg.DashboardFrom}},
		Metrics:   repos.Metrics,
		Templates: templates.Service(repos.Table),
		OAuth:     &oauth.Service{Store: repos.OAuth, Audit: svc.Audit},
	})
}
