package main

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsevents"
	"github.com/aws/aws-cdk-go/awscdk/v2/awseventstargets"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambdaeventsources"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/jsii-runtime-go"

	"github.com/sesame-mail/sesame/internal/config"
	"github.com/sesame-mail/sesame/internal/grants"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/sizing"
)

// scheduledDescription is the description of scheduled function s.
func scheduledDescription(s routes.Scheduled) string {
	return "Sesame " + s.Function + ", every " + s.Every.String()
}

// newScheduled creates the function of s and the EventBridge rule that
// invokes it every s.Every.
func (d functionDeps) newScheduled(s routes.Scheduled) awslambda.Function {
	fn := d.newFunction(s.Function, scheduledDescription(s), sizing.Scheduled(s), nil)
	rule := awsevents.NewRule(d.stack, jsii.String("Schedule-"+s.Function), &awsevents.RuleProps{
		Schedule: awsevents.Schedule_Rate(awscdk.Duration_Minutes(jsii.Number(s.Every.Minutes()))),
		Targets:  &[]awsevents.IRuleTarget{awseventstargets.NewLambdaFunction(fn, nil)},
	})
	const missedTick = "A tick is a sweep of what is due; a missed or failed one is done by the next, " +
		"minutes later, so a queue of stale ticks would hold nothing to redo. Its errors alarm (newAlarms) tells the operator."
	suppress(fn, "Serverless-LambdaDLQ", missedTick)
	suppress(rule, "Serverless-EventBusDLQ", missedTick)
	return fn
}

// functionConfigs is the config each function reads (internal/config), by
// function name: the type of its wire.Function in internal/api, which the
// CDK app does not link (it would link every function's SDK clients);
// TestFunctionConfigs holds the two equal. A function gets the stack-wide
// variables its config reads and no other (functionDeps.env).
var functionConfigs = map[string]config.Function{
	routes.ListEmails.Function:  config.List{},
	routes.GetEmail.Function:    config.Read{},
	routes.Domains.Function:     config.List{},
	routes.Clicks.Function:      config.Read{},
	routes.Events.Function:      config.List{},
	routes.Metrics.Function:     config.Read{},
	routes.Send.Function:        config.Send{},
	routes.SendBatch.Function:   config.Send{},
	routes.CancelEmail.Function: config.Read{},
	routes.OpenAPI.Function:     config.Public{},
	routes.Unsubscribe.Function: config.Unsubscribe{},

	routes.ListContacts.Function:  config.List{},
	routes.GetContact.Function:    config.Read{},
	routes.CreateContact.Function: config.Read{},
	routes.UpdateContact.Function: config.Read{},
	routes.DeleteContact.Function: config.Read{},
	routes.CreateSegment.Function: config.Read{},

	routes.SendBulk.Function:       config.Read{},
	routes.ListCampaigns.Function:  config.List{},
	routes.GetCampaign.Function:    config.Read{},
	routes.CancelCampaign.Function: config.Read{},

	routes.ListSuppressions.Function:  config.List{},
	routes.AddSuppressions.Function:   config.Read{},
	routes.DeleteSuppression.Function: config.Read{},

	routes.CheckDeliverability.Function: config.Read{},

	routes.ListTemplates.Function:  config.List{},
	routes.GetTemplate.Function:    config.Read{},
	routes.CreateTemplate.Function: config.Read{},
	routes.UpdateTemplate.Function: config.Read{},
	routes.DeleteTemplate.Function: config.Read{},

	routes.AutomationEvents.Function: config.AutomationEvents{},

	routes.Review.Function:          config.Review{},
	routes.Status.Function:          config.Status{},
	routes.WebhookDispatch.Function: config.Dispatch{},
	routes.CampaignSender.Function:  config.CampaignSender{},
	routes.CampaignTick.Function:    config.CampaignTick{},

	routes.AutomationRunner.Function: config.AutomationRunner{},
	routes.AutomationTick.Function:   config.AutomationTick{},

	routes.Dashboard.Function:  config.Dashboard{},
	routes.AuthServer.Function: config.OAuth{},
	routes.MCP.Function:        config.MCP{},
}

// configOf is the config of a function; a function without one is a
// programming error caught by synth and the tests.
func configOf(function string) config.Function {
	c, ok := functionConfigs[function]
	if !ok {
		panic(fmt.Sprintf("infra: function %q has no entry in functionConfigs", function))
	}
	return c
}

// queueURLVars is the environment variable (internal/config) that passes each
// queue's URL to the functions that use it, by queue.Def name.
var queueURLVars = map[string]string{
	queue.Review.Name:      "SESAME_REVIEW_QUEUE_URL",
	queue.Webhooks.Name:    "SESAME_WEBHOOKS_QUEUE_URL",
	queue.Sends.Name:       "SESAME_SENDS_QUEUE_URL",
	queue.Automations.Name: "SESAME_AUTOMATIONS_QUEUE_URL",
}

// functionAccess is the permission table (internal/grants.ByFunction),
// a variable the tests replace.
var functionAccess = grants.ByFunction

// functionDeps are the stack's resources that functions are wired to.
type functionDeps struct {
	stack       awscdk.Stack
	binDir      string
	table       awsdynamodb.Table
	queues      map[string]awssqs.Queue // by queue.Def.Name
	configSets  []configSet
	identityArn *string // every SES identity of the stack's account and region
	// arch is the functions' architecture (deployOptions.arch).
	arch awslambda.Architecture
	// sesv2Endpoint, when set (LocalStack mode), is where the functions
	// that send email send their SES v2 calls.
	sesv2Endpoint string
	// env is the stack-wide variables by name (the table, the log level,
	// the cursor and unsubscribe secrets, the public URL): each function
	// gets those its config reads (functionConfigs).
	env map[string]*string
	// profiles holds what the functions of one access profile share, by
	// profile name; the profile's first function creates it.
	profiles map[string]*profileResources
	// functions are the functions created, by name (the alarms watch them).
	functions map[string]awslambda.Function
}

// profileResources are shared by the functions of one access profile.
type profileResources struct {
	// logs receives the logs of every function of the profile. Lambda names
	// each stream after its function (YYYY/MM/DD/<function>[<version>]…),
	// so functions can share a group; one group per profile rather than
	// one per function saves a resource per function. An explicit group,
	// rather than LogRetention, avoids the custom resource Lambda that CDK
	// would add to set the retention.
	logs awslogs.LogGroup
	// role is the execution role of the profile's functions. One role per
	// profile rather than per function saves a role and a policy per
	// function; a function still gets exactly its profile's grants.
	role awsiam.Role
}

// profile is the shared resources of profile a, created on first use.
func (d functionDeps) profile(a grants.Profile) *profileResources {
	if p, ok := d.profiles[a.Name]; ok {
		return p
	}
	logs := awslogs.NewLogGroup(d.stack, jsii.String("Logs-"+a.Name), &awslogs.LogGroupProps{
		Retention: logRetention,
	})
	p := &profileResources{logs: logs, role: d.newRole(a, logs)}
	d.profiles[a.Name] = p
	return p
}

// newRole creates the role of profile a, its functions writing to logs.
// The grants are inline: no separate AWS::IAM::Policy, and no
// AWSLambdaBasicExecutionRole, which would let the functions write to every
// log group. A consumer's event source adds its consume grant to the
// role's default policy.
func (d functionDeps) newRole(a grants.Profile, logs awslogs.LogGroup) awsiam.Role {
	statements := append(d.statements(a), awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Actions:   jsii.Strings(logsWriteActions...),
		Resources: &[]*string{logs.LogGroupArn()}, // the group and its streams
	}))
	role := awsiam.NewRole(d.stack, jsii.String("Role-"+a.Name), &awsiam.RoleProps{
		Description: jsii.String("Sesame functions of access profile " + a.Name),
		AssumedBy:   awsiam.NewServicePrincipal(jsii.String("lambda.amazonaws.com"), nil),
		InlinePolicies: &map[string]awsiam.PolicyDocument{
			"access": awsiam.NewPolicyDocument(&awsiam.PolicyDocumentProps{Statements: &statements}),
		},
	})
	if reason, wildcards := wildcardGrants(a); len(wildcards) > 0 {
		suppress(role, "AwsSolutions-IAM5", reason, wildcards...)
	}
	return role
}

// wildcardGrants names the grants of a whose resource ends in a wildcard
// (as cdk-nag's AwsSolutions-IAM5 finds them) and says why each is the
// narrowest there is. Any other wildcard still fails TestNagPacks.
func wildcardGrants(a grants.Profile) (reason string, appliesTo []any) {
	if a.QueryIndexes {
		reason += "Query on index/* of the stack's table: every list route reads one of its indexes. "
		appliesTo = append(appliesTo, appliesToPattern(`/^Resource::<Table[0-9A-Fa-f]*\.Arn>\/index\/\*$/`))
	}
	if a.SendEmail || a.SignInMail {
		reason += "identity/* of the stack's account and region: domains are verified at run time by the console, " +
			"so their names are unknown at synth (sesIdentitiesArn). "
		appliesTo = append(appliesTo, "Resource::arn:<AWS::Partition>:ses:<AWS::Region>:<AWS::AccountId>:identity/*")
	}
	if a.ReadAccount {
		reason += "ses:GetAccount on *: SES has no resource-level ARN for it (the account's sending quota). "
		appliesTo = append(appliesTo, "Resource::*")
	}
	return strings.TrimSpace(reason), appliesTo
}

// logsWriteActions are what a function needs to write its logs to an
// existing log group.
var logsWriteActions = []string{"logs:CreateLogStream", "logs:PutLogEvents"}

// accessOf is the permission-table entry of a function; a function without
// one is a programming error caught by synth and the tests.
func accessOf(function string) grants.Profile {
	a, ok := functionAccess[function]
	if !ok {
		panic(fmt.Sprintf("infra: function %q has no entry in functionAccess", function))
	}
	return a
}

// newFunction creates the Lambda function of binDir/<function>/bootstrap
// with its environment, running as its profile's role and logging to its
// profile's log group. consumes is the queue a consumer reads, nil for a
// route.
func (d functionDeps) newFunction(function, description string, size sizing.Sizing, consumes *queue.Def) awslambda.Function {
	a := accessOf(function)
	id := "Fn-" + function

	env := map[string]*string{}
	for _, v := range config.Vars(configOf(function)) {
		if val, ok := d.env[v.Name]; ok {
			env[v.Name] = val
		}
	}
	for _, q := range a.SendTo {
		env[queueURLVar(q)] = d.queue(q).QueueUrl()
	}
	if a.OwnQueueURL {
		if consumes == nil {
			panic(fmt.Sprintf("infra: %s has ownQueueURL but consumes no queue", function))
		}
		env[queueURLVar(*consumes)] = d.queue(*consumes).QueueUrl()
	}
	if a.SendEmail {
		for _, cs := range d.configSets {
			env[cs.envVar] = cs.set.ConfigurationSetName()
		}
	}
	if (a.SendEmail || a.SignInMail) && d.sesv2Endpoint != "" {
		env[sesv2EndpointVar] = jsii.String(d.sesv2Endpoint)
	}

	fn := awslambda.NewFunction(d.stack, jsii.String(id), &awslambda.FunctionProps{
		// Names the route or queue in the console; the tests find functions by it.
		Description:  jsii.String(description),
		Runtime:      awslambda.Runtime_PROVIDED_AL2023(),
		Architecture: d.arch,
		Handler:      jsii.String("bootstrap"),
		Code:         awslambda.Code_FromAsset(jsii.String(filepath.Join(d.binDir, function)), nil),
		MemorySize:   jsii.Number(size.MemoryMB),
		Timeout:      awscdk.Duration_Seconds(jsii.Number(size.Timeout.Seconds())),
		Environment:  &env,
		LogGroup:     d.profile(a).logs,
		Role:         d.profile(a).role,
		// JSON lines, and none of Lambda's START/END/REPORT lines
		// (sizing.FunctionLogs says why).
		LoggingFormat:         awslambda.LoggingFormat(sizing.FunctionLogs.Format),
		SystemLogLevelV2:      awslambda.SystemLogLevel(sizing.FunctionLogs.SystemLevel),
		ApplicationLogLevelV2: awslambda.ApplicationLogLevel(sizing.FunctionLogs.ApplicationLevel),
	})
	d.functions[function] = fn
	return fn
}

// queue is the stack's queue of def.
func (d functionDeps) queue(def queue.Def) awssqs.Queue {
	q, ok := d.queues[def.Name]
	if !ok {
		panic(fmt.Sprintf("infra: the stack defines no queue %s", def.Name))
	}
	return q
}

// queueURLVar is the variable that passes q's URL; a queue without one is
// a programming error caught by accessTableProblems.
func queueURLVar(q queue.Def) string {
	v, ok := queueURLVars[q.Name]
	if !ok {
		panic(fmt.Sprintf("infra: queue %s has no entry in queueURLVars", q.Name))
	}
	return v
}

// statements are the policy statements that grant a.
func (d functionDeps) statements(a grants.Profile) []awsiam.PolicyStatement {
	var out []awsiam.PolicyStatement
	allow := func(actions []string, resources ...*string) {
		out = append(out, awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
			Actions:   jsii.Strings(actions...),
			Resources: &resources,
		}))
	}
	if len(a.Table) > 0 {
		allow(a.Table, d.table.TableArn())
	}
	if a.QueryIndexes {
		allow([]string{grants.Query}, jsii.String(*d.table.TableArn()+"/index/*"))
	}
	if a.APIKeys {
		out = append(out, awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
			Actions:   jsii.Strings(grants.UpdateItem),
			Resources: &[]*string{d.table.TableArn()},
			Conditions: &map[string]any{
				"ForAllValues:StringLike": map[string]any{"dynamodb:LeadingKeys": []string{grants.APIKeysPattern}},
			},
		}))
	}
	for _, k := range a.Keyed {
		out = append(out, awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
			Actions:   jsii.Strings(k.Action),
			Resources: &[]*string{d.table.TableArn()},
			Conditions: &map[string]any{
				"ForAllValues:StringLike": map[string]any{"dynamodb:LeadingKeys": k.LeadingKeys},
			},
		}))
	}
	for _, q := range a.SendTo {
		allow([]string{grants.SendMessage}, d.queue(q).QueueArn())
	}
	if a.SendEmail {
		resources := []*string{d.identityArn}
		for _, cs := range d.configSets {
			resources = append(resources, cs.arn)
		}
		allow(sesSendActions, resources...)
	}
	if a.SignInMail {
		allow([]string{grants.SendSimpleEmail}, d.identityArn)
	}
	if a.ReadAccount {
		allow([]string{grants.GetAccount}, jsii.String("*"))
	}
	return out
}

// newConsumer creates the function of queue consumer c, fed by its queue.
func (d functionDeps) newConsumer(c routes.Consumer) awslambda.Function {
	q := d.queue(c.Queue)
	fn := d.newFunction(c.Function, "Sesame consumer of the "+c.Queue.Name+" queue", sizing.Consumer(c), &c.Queue)
	// The event source also grants the consume actions on q (receive,
	// delete, change visibility, get attributes and URL).
	props := &awslambdaeventsources.SqsEventSourceProps{
		BatchSize:               jsii.Number(sizing.BatchSize(c)),
		ReportBatchItemFailures: jsii.Bool(true),
	}
	if w := sizing.BatchingWindow(c); w > 0 {
		props.MaxBatchingWindow = awscdk.Duration_Seconds(jsii.Number(w.Seconds()))
	}
	fn.AddEventSource(awslambdaeventsources.NewSqsEventSource(q, props))
	const redrive = "The queue's redrive policy moves a message that failed maxReceiveCount times to its dead-letter queue, " +
		"which has a depth alarm; an SQS event source has no on-failure destination (streams and Kafka only) " +
		"and a function invoked by one never uses Lambda's asynchronous dead-letter queue."
	suppress(fn, "Serverless-LambdaDLQ", redrive)
	suppress(fn, "Serverless-LambdaEventSourceMappingDestination", redrive)
	return fn
}

// accessTableProblems lists the functions without a functionAccess entry
// and the entries that name no function, so a route added without deciding
// its grants fails before synth.
func accessTableProblems() []string {
	var problems []string
	names := map[string]bool{}
	for _, fn := range functionNames() {
		if names[fn] {
			problems = append(problems, fmt.Sprintf("function %q is defined twice", fn))
		}
		names[fn] = true
		if _, ok := functionAccess[fn]; !ok {
			problems = append(problems, fmt.Sprintf("function %q has no entry in functionAccess", fn))
		}
	}
	profiles := map[string]grants.Profile{}
	for fn, a := range functionAccess {
		if !names[fn] {
			problems = append(problems, fmt.Sprintf("functionAccess entry %q names no route or consumer", fn))
		}
		if a.Name == "" {
			problems = append(problems, fmt.Sprintf("%s: its access profile has no name", fn))
		} else if p, ok := profiles[a.Name]; ok && !reflect.DeepEqual(p, a) {
			problems = append(problems, fmt.Sprintf("two different access profiles are named %q", a.Name))
		}
		profiles[a.Name] = a
		for _, q := range a.SendTo {
			if _, ok := queueURLVars[q.Name]; !ok {
				problems = append(problems, fmt.Sprintf("%s sends to queue %s, which has no entry in queueURLVars", fn, q.Name))
			}
		}
	}
	// A consumer's event source grants consuming its queue to its role,
	// which every function of its profile shares.
	consumes := map[string]string{} // function → the queue it consumes
	for _, c := range routes.Consumers {
		consumes[c.Function] = c.Queue.Name
	}
	queueOfProfile := map[string]string{}
	for _, fn := range functionNames() {
		name := functionAccess[fn].Name
		q, seen := queueOfProfile[name]
		if seen && q != consumes[fn] {
			problems = append(problems, fmt.Sprintf("access profile %q is shared by functions that consume different queues (or none)", name))
		}
		queueOfProfile[name] = consumes[fn]
	}
	for _, c := range routes.Consumers {
		if _, ok := queueURLVars[c.Queue.Name]; functionAccess[c.Function].OwnQueueURL && !ok {
			problems = append(problems, fmt.Sprintf("%s needs the URL of queue %s, which has no entry in queueURLVars", c.Function, c.Queue.Name))
		}
	}
	return problems
}
