// Command infra is Sesame's CDK app: one stack holding the table, the queues,
// the SES configuration sets and the SNS topic that brings their events to
// the ses-events queue, one Lambda function per API route and per
// queue consumer, the REST API in front of the routes; and a nested stack
// holding the alarms and dashboard that watch them (infra/monitoring.go).
//
// cdk runs it from the repository root (cdk.json: "go run ./infra"), so the
// function binaries are read from bin/<function>/bootstrap there.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/sizing"
)

// DefaultBinDir is where `make build` puts bin/<function>/bootstrap, relative
// to the repository root.
const DefaultBinDir = "bin"

// SesameStackProps configures NewSesameStack.
type SesameStackProps struct {
	awscdk.StackProps
	// BinDir holds one <function>/bootstrap per route and queue consumer;
	// DefaultBinDir if empty.
	BinDir string
}

// NewSesameStack defines every resource of one Sesame deployment.
func NewSesameStack(scope constructs.Construct, id string, props *SesameStackProps) awscdk.Stack {
	var p SesameStackProps
	if props != nil {
		p = *props
	}
	if p.BinDir == "" {
		p.BinDir = DefaultBinDir
	}
	stack := awscdk.NewStack(scope, &id, &p.StackProps)
	opts, err := deployOptionsOf(stack)
	if err != nil {
		// run() reports a bad context before it builds the stack.
		panic("infra: " + err.Error())
	}

	table := newTable(stack)
	queues := newQueues(stack)
	cursorSecret := newCursorSecret(stack)
	unsubscribeSecret := newUnsubscribeSecret(stack)
	configSets := sesConfiguration(stack, opts, queues[queue.SESEvents.Name])

	fns := functionDeps{
		stack:       stack,
		binDir:      p.BinDir,
		table:       table,
		queues:      queues,
		configSets:  configSets,
		identityArn: sesIdentitiesArn(stack),
		arch:        lambdaArchitecture(opts.arch),
		// Empty outside LocalStack mode.
		sesv2Endpoint: opts.sesv2Endpoint,
		env: map[string]*string{
			"SESAME_TABLE": table.TableName(),
			"LOG_LEVEL":    jsii.String("info"),
			// Resolved by CloudFormation at deploy time (see
			// newCursorSecret), so the template holds a
			// {{resolve:secretsmanager:…}} reference only.
			"SESAME_CURSOR_SECRET":      cursorSecret.SecretValue().UnsafeUnwrap(),
			"SESAME_UNSUBSCRIBE_SECRET": unsubscribeSecret.SecretValue().UnsafeUnwrap(),
			"SESAME_DASHBOARD_SECRET":   newDashboardSecret(stack).SecretValue().UnsafeUnwrap(),
			// The From of sign-in links: a verified sender of the account.
			"SESAME_DASHBOARD_FROM": jsii.String(opts.dashboardFrom),
		},
		profiles:  map[string]*profileResources{},
		functions: map[string]awslambda.Function{},
	}

	api := newRestAPI(stack)
	byPath := map[string]awslambda.Function{}
	var paths []string
	for _, f := range routes.RouteFunctions() {
		fn := fns.newFunction(f.Name, f.Description(), sizing.Route(f.Routes[0]), nil)
		suppress(fn, "Serverless-LambdaDLQ", synchronousOnly)
		for _, r := range f.Routes {
			addRoute(api, r, fn)
			if _, ok := byPath[r.Path]; !ok {
				byPath[r.Path] = fn
				paths = append(paths, r.Path)
			}
		}
	}
	// Any other method on a known path reaches a function of the path,
	// whose router answers 405 with Allow, as `make dev` does; API Gateway
	// alone would answer it like an unknown path.
	for _, p := range paths {
		addRoute(api, routes.Route{Method: "ANY", Path: p}, byPath[p])
	}
	// Only the consumers and sites, created next, build links on it.
	publicURL := publicURL(stack, api, opts)
	fns.env["SESAME_PUBLIC_URL"] = publicURL
	for _, site := range routes.Sites {
		fn := fns.newFunction(site.Function, site.Description(), sizing.SiteSizing(site), nil)
		suppress(fn, "Serverless-LambdaDLQ", synchronousOnly)
		addRoute(api, routes.Route{Method: "ANY", Path: site.Prefix}, fn)
		addRoute(api, routes.Route{Method: "ANY", Path: site.Prefix + "/{proxy+}"}, fn)
		for _, p := range site.Also {
			addRoute(api, routes.Route{Method: "ANY", Path: p}, fn)
		}
	}
	for _, c := range routes.Consumers {
		fns.newConsumer(c)
	}
	for _, s := range routes.Schedules {
		fns.newScheduled(s)
	}
	requireTLS(stack, queues)
	newMonitoring(stack, opts, monitored{
		api:        api,
		queues:     queues,
		functions:  fns.functions,
		senderLogs: fns.profile(accessOf(routes.CampaignSender.Function)).logs,
	})

	awscdk.NewCfnOutput(stack, jsii.String("ApiUrl"), &awscdk.CfnOutputProps{
		Value:       api.Url(),
		Description: jsii.String("Base URL of the REST API stage; routes live under /api/v1"),
	})
	awscdk.NewCfnOutput(stack, jsii.String("PublicUrl"), &awscdk.CfnOutputProps{
		Value:       publicURL,
		Description: jsii.String("Where recipients reach the stack: unsubscribe links are built on it"),
	})
	awscdk.NewCfnOutput(stack, jsii.String("TableName"), &awscdk.CfnOutputProps{
		Value: table.TableName(),
	})
	awscdk.NewCfnOutput(stack, jsii.String("ReviewQueueUrl"), &awscdk.CfnOutputProps{
		Value:       queues[queue.Review.Name].QueueUrl(),
		Description: jsii.String("SESAME_REVIEW_QUEUE_URL for the console's held clear and deny"),
	})
	awscdk.NewCfnOutput(stack, jsii.String("SendsQueueUrl"), &awscdk.CfnOutputProps{
		Value:       queues[queue.Sends.Name].QueueUrl(),
		Description: jsii.String("SESAME_SENDS_QUEUE_URL for the console's approvals, which start campaigns"),
	})
	return stack
}

// synchronousOnly is why a function behind the API has no dead-letter
// queue: Lambda's holds failed asynchronous invocations only.
const synchronousOnly = "API Gateway invokes the function synchronously and the client gets the error; " +
	"Lambda's dead-letter queue holds failed asynchronous invocations only."

// functionNames lists every function of the stack: one per
// routes.RouteFunctions entry and one per routes.Consumers entry.
func functionNames() []string { return routes.FunctionNames() }

// missingBinaries lists the bootstrap files of the stack's functions absent
// from binDir. Checked before synth because CDK's own error names only the
// directory.
func missingBinaries(binDir string) []string {
	var missing []string
	for _, fn := range functionNames() {
		p := filepath.Join(binDir, fn, "bootstrap")
		if _, err := os.Stat(p); err != nil {
			missing = append(missing, p)
		}
	}
	return missing
}

func main() {
	err := run()
	// Close also removes the runtime jsii unpacked into TMPDIR at start-up.
	jsii.Close()
	if err != nil {
		fmt.Fprintln(os.Stderr, "infra:", err)
		os.Exit(1)
	}
}

func run() error {
	if problems := accessTableProblems(); len(problems) > 0 {
		return fmt.Errorf("permission table (infra/functions.go): %v", problems)
	}
	if missing := missingBinaries(DefaultBinDir); len(missing) > 0 {
		return fmt.Errorf("function binaries missing, build them first (make build): %v", missing)
	}
	app := awscdk.NewApp(nil)
	opts, err := deployOptionsOf(app)
	if err != nil {
		return err
	}
	if problems := binaryArchProblems(DefaultBinDir, opts.arch); len(problems) > 0 {
		return fmt.Errorf("function binaries are not %s (make build ARCH=%s, or -c %s=… to match them): %v", opts.arch, opts.arch, contextArch, problems)
	}
	NewSesameStack(app, "Sesame", &SesameStackProps{})
	app.Synth(nil)
	return nil
}
