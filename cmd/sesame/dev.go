package main

import (
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/spf13/cobra"

	"github.com/sesame-mail/sesame/internal/api"
	"github.com/sesame-mail/sesame/internal/config"
	"github.com/sesame-mail/sesame/internal/devstack"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/ses"
)

// localEndpoints must point at emulators: `sesame dev` refuses to create
// tables and seed keys in a real AWS account.
var localEndpoints = []string{"AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL_SQS", "AWS_ENDPOINT_URL_SESV2"}

// devTable is the local stack's table when neither --table nor
// SESAME_TABLE names one; `sesame dev` creates it and writes its name to
// the env file for the console and scripts.
const devTable = "sesame"

func (c *console) devCommand() *cobra.Command {
	var addr, envFile, dataDir string
	cmd := &cobra.Command{
		Use:   "dev",
		Short: "Run the local stack: API on --addr, queue pollers, demo workspace",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			for _, name := range localEndpoints {
				if !isLoopbackURL(os.Getenv(name)) {
					return fmt.Errorf("%s must point at a local emulator (http://127.0.0.1:PORT); run `make dev`", name)
				}
			}
			table := c.cfg.Table
			if table == "" {
				table = devTable
			}
			awsCfg, err := c.aws(ctx)
			if err != nil {
				return err
			}
			ddb := dynamodb.NewFromConfig(awsCfg, disableChecksum)
			if err := dynamo.EnsureTable(ctx, ddb, table); err != nil {
				return err
			}
			sqsClient := sqs.NewFromConfig(awsCfg)
			queueURLs, err := queue.Ensure(ctx, sqsClient, "", queue.All)
			if err != nil {
				return err
			}
			prev, err := devstack.ReadEnv(envFile)
			if err != nil {
				return err
			}
			secret := prev["SESAME_CURSOR_SECRET"]
			if secret == "" {
				secret = devstack.NewSecret()
			}
			// Kept across restarts: unsubscribe links already sent keep working.
			unsubSecret := prev["SESAME_UNSUBSCRIBE_SECRET"]
			if unsubSecret == "" {
				unsubSecret = devstack.NewSecret()
			}
			// Kept across restarts: owners stay signed in.
			dashSecret := prev["SESAME_DASHBOARD_SECRET"]
			if dashSecret == "" {
				dashSecret = devstack.NewSecret()
			}
			dashFrom := os.Getenv("SESAME_DASHBOARD_FROM")
			if dashFrom == "" {
				dashFrom = devstack.DemoSender
			}
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return err
			}
			defer ln.Close() // Serve closes it too; this covers a failed start
			publicURL := "http://" + ln.Addr().String()
			cfg := config.API{
				LogLevel:         slog.LevelInfo,
				DynamoDB:         config.DynamoDB{Table: table},
				Paging:           config.Paging{CursorSecret: secret},
				Unsubscribing:    config.Unsubscribing{UnsubscribeSecret: unsubSecret},
				PublicURL:        config.PublicURL{PublicURL: publicURL},
				ReviewQueue:      config.ReviewQueue{ReviewQueueURL: queueURLs[queue.Review.Name]},
				SES:              config.SES{ConfigSetFull: "sesame-full", ConfigSetEssential: "sesame-essential", ConfigSetOff: "sesame-off"},
				WebhooksQueue:    config.WebhooksQueue{WebhooksQueueURL: queueURLs[queue.Webhooks.Name]},
				SendsQueue:       config.SendsQueue{SendsQueueURL: queueURLs[queue.Sends.Name]},
				AutomationsQueue: config.AutomationsQueue{AutomationsQueueURL: queueURLs[queue.Automations.Name]},
				// The SES emulator has no account to read the rate from.
				Pacing: config.Pacing{MaxSendRate: devMaxSendRate},
				// Local receivers listen on loopback; production never allows it.
				Delivery:        config.Delivery{WebhookAllowedPrefixes: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}},
				DashboardSecret: config.DashboardSecret{DashboardSecret: dashSecret},
				DashboardMail:   config.DashboardMail{DashboardFrom: dashFrom},
			}
			logger := api.NewLogger(cfg.LogLevel)
			clients := api.NewClients(awsCfg, config.SDK{}, disableChecksum)
			deps := api.NewDeps(cfg, clients, logger)
			if dataDir, err = filepath.Abs(dataDir); err != nil {
				return err
			}
			// The SES emulator has no identity API: the local stack keeps its
			// identities (LocalSES), for Seed here and the console.
			identities := &ses.Client{API: &devstack.LocalSES{Path: devstack.IdentitiesFile(dataDir), Next: clients.SES}}
			demo, err := devstack.Seed(ctx, deps.Repos, identities, prev)
			if err != nil {
				return err
			}
			env := devstack.Env{
				"SESAME_URL":           publicURL,
				"SESAME_LIVE_KEY":      demo.LiveKey,
				"SESAME_TEST_KEY":      demo.TestKey,
				"SESAME_WORKSPACE_ID":  demo.WorkspaceID,
				"SESAME_TABLE":         table,
				"SESAME_CURSOR_SECRET": secret,
				// Signs unsubscribe links, on SESAME_URL (the public URL).
				"SESAME_UNSUBSCRIBE_SECRET": unsubSecret,
				"SESAME_DASHBOARD_SECRET":   dashSecret,
				"SESAME_DASHBOARD_FROM":     dashFrom,
				"SESAME_DASHBOARD_OWNER":    demo.Owner,
				"AWS_REGION":                awsCfg.Region,
				// What the console needs to act like the functions (held clear).
				"SESAME_REVIEW_QUEUE_URL":     cfg.ReviewQueueURL,
				"SESAME_WEBHOOKS_QUEUE_URL":   cfg.WebhooksQueueURL,
				"SESAME_SENDS_QUEUE_URL":      cfg.SendsQueueURL,
				"SESAME_CONFIG_SET_FULL":      cfg.ConfigSetFull,
				"SESAME_CONFIG_SET_ESSENTIAL": cfg.ConfigSetEssential,
				"SESAME_CONFIG_SET_OFF":       cfg.ConfigSetOff,
				// What the emulators do not keep: SES identities and raw MIME.
				devstack.DataEnv: dataDir,
			}
			for _, d := range queue.All {
				env["SESAME_QUEUE_URL_"+envName(d.Name)] = queueURLs[d.Name]
			}
			for _, name := range append(localEndpoints, "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY") {
				env[name] = os.Getenv(name)
			}
			if err := env.Write(envFile); err != nil {
				return err
			}
			printDevBanner(c.out, env, envFile)
			// The exact MIME of what goes to SES or is captured is kept.
			raw := &devstack.RawMessages{Dir: devstack.MIMEDir(dataDir), Next: deps.Sending.Transport, Emails: deps.Repos.Emails, Logger: logger}
			deps.Sending.Captures = raw
			// SES events, which the SES emulator does not publish, are simulated.
			sesEvents := &devstack.SESEvents{
				Next:  raw,
				Queue: &queue.Publisher{SQS: sqsClient, QueueURL: queueURLs[queue.SESEvents.Name]},
			}
			deps.Sending.Transport = sesEvents
			deps.CampaignSender.Transport = sesEvents
			deps.AutomationRunner.Transport = sesEvents
			deps.AutomationRunner.Captures = raw
			// The dashboard's sign-in links also go to this log.
			dashboard, err := api.NewDashboard(cfg, deps, clients, raw, true)
			if err != nil {
				return err
			}
			stack := &devstack.Stack{Deps: deps, Logger: logger, Ticks: api.Ticks(deps), Dashboard: dashboard,
				DevRoutes: append(devstack.Engagement{Emails: deps.Repos.Emails, Events: sesEvents}.Routes(), raw.Routes()...)}
			for c, consume := range api.Consumers(deps) {
				stack.Pollers = append(stack.Pollers, &queue.Poller{
					SQS: sqsClient, QueueURL: queueURLs[c.Queue.Name], Consume: consume, Logger: logger,
				})
			}
			return stack.Serve(ctx, ln)
		},
	}
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:8080", "address to serve the API on")
	cmd.Flags().StringVar(&envFile, "env-file", ".sesame/dev.env", "file to write the local settings and demo keys to")
	cmd.Flags().StringVar(&dataDir, "data-dir", ".sesame/data", "folder of the local data the emulators do not keep (SES identities, raw MIME), kept across restarts")
	cmd.AddCommand(c.devSeedCommand())
	return cmd
}

// devMaxSendRate is the local stack's SES rate, emails per second, a
// production account's starting rate: campaigns and automations share 11
// of it (capacity.DefaultShares).
const devMaxSendRate = 14

// disableChecksum silences DynamoDB Local, whose CRC32 headers do not
// always match; real DynamoDB's do.
func disableChecksum(o *dynamodb.Options) { o.DisableValidateResponseChecksum = true }

// disableChecksumIfLocal applies disableChecksum when the console talks to
// a local emulator.
func disableChecksumIfLocal() func(*dynamodb.Options) {
	if isLoopbackURL(endpointURL("AWS_ENDPOINT_URL_DYNAMODB")) {
		return disableChecksum
	}
	return func(*dynamodb.Options) {}
}

// endpointURL is the endpoint the AWS SDK uses for the service of
// serviceVar (AWS_ENDPOINT_URL_<SERVICE>): that variable, else the global
// AWS_ENDPOINT_URL; "" is AWS itself.
func endpointURL(serviceVar string) string {
	if u := os.Getenv(serviceVar); u != "" {
		return u
	}
	return os.Getenv("AWS_ENDPOINT_URL")
}

func isLoopbackURL(u string) bool {
	return strings.HasPrefix(u, "http://127.0.0.1:") || strings.HasPrefix(u, "http://localhost:")
}

func envName(queueName string) string {
	return strings.ToUpper(strings.ReplaceAll(queueName, "-", "_"))
}

func printDevBanner(w io.Writer, env devstack.Env, envFile string) {
	fmt.Fprintf(w, "\nSesame is running at %s\n\n", env["SESAME_URL"])
	fmt.Fprintf(w, "  workspace  %s\n  live key   %s\n  test key   %s\n\n", env["SESAME_WORKSPACE_ID"], env["SESAME_LIVE_KEY"], env["SESAME_TEST_KEY"])
	fmt.Fprintf(w, "Try:  curl -H \"Authorization: Bearer %s\" %s/api/v1/emails\n", env["SESAME_TEST_KEY"], env["SESAME_URL"])
	fmt.Fprintf(w, "API:  %s/api/v1/openapi.json (OpenAPI 3.1, no key needed); guide: docs/api.md\n", env["SESAME_URL"])
	fmt.Fprintf(w, "Dashboard: %s/dashboard/ (sign in as %s; the link is printed here and delivered to the local SES); guide: docs/dashboard.md\n", env["SESAME_URL"], env["SESAME_DASHBOARD_OWNER"])
	fmt.Fprintf(w, "Settings for scripts and the console: set -a; . %s\n\n", envFile)
}
