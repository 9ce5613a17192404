package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sesv2"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/spf13/cobra"

	"github.com/sesame-mail/sesame/internal/api/owners"
	"github.com/sesame-mail/sesame/internal/campaign"
	"github.com/sesame-mail/sesame/internal/config"
	"github.com/sesame-mail/sesame/internal/devstack"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/dynamo/repositories"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/owner"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/ses"
)

// ownerClients are what the owner service reaches: the AWS clients, and
// on the local stack its raw messages.
type ownerClients struct {
	DynamoDB dynamo.DB
	SES      ses.API
	SQS      ownerSQS
	Raw      email.RawReader // nil: no messages are kept (a deployed stack)
	// Approver names who approves a campaign; Starter starts it (nil: the
	// engine's starter over the table and the sends queue, when
	// SESAME_SENDS_QUEUE_URL names one).
	Approver campaign.Approver
	Starter  campaign.Starter
}

// ownerSQS is what the owner service sends to SQS: held emails to the
// review queue, a started campaign's chunks to the sends queue.
type ownerSQS interface {
	queue.SendAPI
	queue.BatchSendAPI
}

// newOwner builds the owner service over the stack's table, SES and the
// queues (owners.Service).
func newOwner(cfg config.Console, table string, c ownerClients) *owner.Service {
	repos := repositories.New(dynamo.NewTable(c.DynamoDB, table))
	return owners.Service(owners.Queues{ReviewQueueURL: cfg.ReviewQueueURL, SendsQueueURL: cfg.SendsQueueURL}, repos, owners.Clients{
		SES: c.SES, SQS: c.SQS, Raw: c.Raw, Approver: c.Approver, Starter: c.Starter,
	})
}

// owner is the owner service over the clients of the console's AWS
// configuration, built once.
func (c *console) owner(ctx context.Context) (*owner.Service, error) {
	if c.svc != nil {
		return c.svc, nil
	}
	table, err := c.cfg.RequireTable()
	if err != nil {
		return nil, err
	}
	awsCfg, err := c.aws(ctx)
	if err != nil {
		return nil, err
	}
	clients := ownerClients{
		DynamoDB: dynamodb.NewFromConfig(awsCfg, disableChecksumIfLocal()), SES: c.sesAPI, SQS: sqs.NewFromConfig(awsCfg),
		Approver: c.approver, Starter: c.starter,
	}
	if clients.SES == nil {
		if clients.SES, err = sesClient(awsCfg); err != nil {
			return nil, err
		}
	}
	dataDir := os.Getenv(devstack.DataEnv)
	if dataDir != "" {
		clients.Raw = &devstack.RawMessages{Dir: devstack.MIMEDir(dataDir)}
	}
	if clients.Approver == nil {
		clients.Approver = awsApprover{STS: sts.NewFromConfig(awsCfg)}
		if dataDir != "" {
			clients.Approver = localApprover{}
		}
	}
	c.svc = newOwner(c.cfg, table, clients)
	return c.svc, nil
}

// flagged is the console's one reading of a refusal (a fail.Error that is
// not a fault or an outage, which explainErrors words): its message, in
// the context err adds to it, naming the flag the refused input came from
// (the services name inputs as the console's flags do); an input that is
// a positional argument keeps the service's reason alone. errors.Is still
// finds what err wraps.
func flagged(cmd *cobra.Command, err error) error {
	e, ok := fail.As(err)
	if cmd == nil || !ok || e.Kind == fail.KindInternal || e.Kind == fail.KindUnavailable {
		return err
	}
	if e != err { // wrapped in context: "context: message"
		return &refusal{msg: strings.Replace(err.Error(), e.Error(), e.Message, 1), err: err}
	}
	switch {
	case e.Param != "" && cmd.Flags().Lookup(e.Param) != nil:
		return &refusal{msg: "--" + e.Message, err: err}
	case e.Param != "" && e.Err != nil && e.Kind == fail.KindInvalid:
		return &refusal{msg: strings.TrimPrefix(e.Message, e.Param+": "), err: err}
	}
	return &refusal{msg: e.Message, err: err}
}

// refusal is a refused command as the console prints it.
type refusal struct {
	msg string
	err error
}

func (r *refusal) Error() string { return r.msg }
func (r *refusal) Unwrap() error { return r.err }

// withOwner is a command's RunE that first builds the owner service, which
// every owner command calls.
func (c *console) withOwner(run func(cmd *cobra.Command, args []string, svc *owner.Service) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		svc, err := c.owner(cmd.Context())
		if err != nil {
			return err
		}
		return run(cmd, args, svc)
	}
}

// sesClient is SES v2 for the owner service; against the local stack
// (.sesame/dev.env sets SESAME_LOCAL_DATA), its identities are the local
// stack's, as the SES emulator has no identity API.
func sesClient(awsCfg aws.Config) (ses.API, error) {
	client := sesv2.NewFromConfig(awsCfg)
	dataDir := os.Getenv(devstack.DataEnv)
	if dataDir == "" {
		return client, nil
	}
	// Never fake verification of a real SES account's identities.
	if endpoint := endpointURL("AWS_ENDPOINT_URL_SESV2"); !isLoopbackURL(endpoint) {
		return nil, fmt.Errorf("%s is set (the local stack's data, from .sesame/dev.env) but AWS_ENDPOINT_URL_SESV2 (%q) is not the local SES emulator: unset %s to manage SES identities in AWS", devstack.DataEnv, endpoint, devstack.DataEnv)
	}
	return &devstack.LocalSES{Path: devstack.IdentitiesFile(dataDir), Next: client}, nil
}
