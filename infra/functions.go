package main

import (
	"fmt"
	"path/filepath"
	"reflect"

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
	"github.com/sesame-mail/sesame/internal/dynamo"
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
	awsevents.NewRule(d.stack, jsii.String("Schedule-"+s.Function), &awsevents.RuleProps{
		Schedule: awsevents.Schedule_Rate(awscdk.Duration_Minutes(jsii.Number(s.Every.Minutes()))),
		Targets:  &[]awsevents.IRuleTarget{awseventstargets.NewLambdaFunction(fn, nil)},
	})
	return fn
}

// DynamoDB item actions. TransactWriteItems is not an IAM action of its
// own: each item of a transaction is authorized as its action (Put →
// PutItem, Update → UpdateItem, Delete → DeleteItem, ConditionCheck →
// ConditionCheckItem), so a function that writes in transactions is granted
// those.
const (
	ddbGetItem      = "dynamodb:GetItem"
	ddbBatchGetItem = "dynamodb:BatchGetItem"
	ddbQuery        = "dynamodb:Query"
	ddbPutItem      = "dynamodb:PutItem"
	ddbUpdateItem   = "dynamodb:UpdateItem"
	ddbDeleteItem   = "dynamodb:DeleteItem"
	// ConditionCheckItem authorizes a transaction's condition check.
	ddbConditionCheckItem = "dynamodb:ConditionCheckItem"
	// BatchWriteItem is authorized as itself, for its puts and deletes.
	ddbBatchWriteItem = "dynamodb:BatchWriteItem"
)

// access is an access profile: what a function may do besides writing its
// own logs (and, for a queue consumer, consuming its queue, which the event
// source grants).
type access struct {
	// name identifies the profile in the stack (accessTableProblems: one
	// profile per name).
	name string
	// table lists the item actions allowed on the table itself.
	table []string
	// queryIndexes allows Query on the table's global secondary indexes.
	queryIndexes bool
	// sendTo lists the queues the function sends to: sqs:SendMessage on
	// each (SendMessageBatch is authorized as sqs:SendMessage), and each
	// queue's URL in its queueURLVars variable.
	sendTo []queue.Def
	// ownQueueURL passes a consumer the URL of the queue it consumes, in
	// that queue's queueURLVars variable, for calls on its own messages.
	// The event source's consume grant covers them: it includes
	// sqs:ChangeMessageVisibility (a webhook retry is scheduled by
	// lengthening its message's visibility).
	ownQueueURL bool
	// sendEmail allows sesSendActions on the account's SES identities and
	// the stack's configuration sets, and passes the sets' names as
	// SESAME_CONFIG_SET_*.
	sendEmail bool
	// apiKeys allows the per-request key lookup and rate-limit count: an
	// UpdateItem limited to API-key items (partition keys APIKEY#…).
	apiKeys bool
	// keyed allows item actions on the table limited to the items whose
	// partition key matches (dynamodb:LeadingKeys).
	keyed []keyedGrant
	// readAccount allows ses:GetAccount (the account's maximum send rate),
	// an action that takes no resource.
	readAccount bool
}

// keyedGrant is one action on the table's items of some partitions only:
// patterns as dynamodb.LeadingKeys (StringLike: * is any run of
// characters) from internal/dynamo's layout.
type keyedGrant struct {
	action      string
	leadingKeys []string
}

// readRoute is a GET route: every /api/v1 request reads its API key and
// counts it in the key's rate-limit window (apiKeys), then the route reads
// (GetItem, or a Query on the table or an index).
var readRoute = access{
	name:         "read-route",
	table:        []string{ddbGetItem, ddbQuery},
	queryIndexes: true,
	apiKeys:      true,
}

// sendRoute is POST /send and /send/batch: the send context in one
// BatchGetItem; puts of the email, the Idempotency-Key record and held
// content (alone or in transactions); updates of the key's answer, of a
// failed email and of the rate-limit count; deletes that undo a failed
// accept. Held email goes to the review queue; the rest goes out through
// SES. A send that fails before SES takes it is recorded like the status
// pipeline records events: the feed item, the failed count, and the
// webhook fan-out (the workspace's endpoints, a Query on the table).
var sendRoute = access{
	name:      "send-route",
	table:     []string{ddbBatchGetItem, ddbPutItem, ddbUpdateItem, ddbDeleteItem, ddbQuery},
	sendTo:    []queue.Def{queue.Review, queue.Webhooks},
	sendEmail: true,
}

// contactWriteRoute is a contact write (create, update, delete): it reads
// the contact and its email claim (GetItem) and writes both in one
// transaction, whose items are authorized as PutItem and DeleteItem. It
// updates nothing but its API key's count.
var contactWriteRoute = access{
	name:    "contact-write-route",
	table:   []string{ddbGetItem, ddbPutItem, ddbDeleteItem},
	apiKeys: true,
}

// suppressionWriteRoute is POST and DELETE /suppressions: the key lookup
// and rate limit (apiKeys), then one conditional PutItem per address added
// (a listed address comes back in the failed condition, no read needed) or
// one conditional DeleteItem. No Query, no index, no other item.
var suppressionWriteRoute = access{
	name:    "suppression-write-route",
	table:   []string{ddbPutItem, ddbDeleteItem},
	apiKeys: true,
}

// segmentRoute is POST /segments: it reads the workspace's do-not-send
// list and every contact shard (Query on the table) and puts the segment
// (PutItem), besides its API key's count.
var segmentRoute = access{
	name:    "segment-route",
	table:   []string{ddbQuery, ddbPutItem},
	apiKeys: true,
}

// keyOnlyRoute is a route that reads and writes nothing of a workspace
// (POST /deliverability/check computes its answer from the body): the key
// lookup and rate limit (apiKeys), nothing else of the table.
var keyOnlyRoute = access{name: "key-only-route", apiKeys: true}

// sendBulkRoute is POST /send/bulk: it reads the Idempotency-Key record,
// the workspace and the segment (GetItem), the do-not-send list and every
// contact shard (Query), and writes the frozen recipients' chunks
// (BatchWriteItem, deleted again by a request that lost its key to a
// twin) and then, in one transaction, the campaign record and the key's
// record (PutItem). Writes reach those items only; nothing is queued or
// sent: a draft waits for the owner.
var sendBulkRoute = access{
	name:    "send-bulk-route",
	table:   []string{ddbGetItem, ddbQuery},
	apiKeys: true,
	keyed: []keyedGrant{
		{action: ddbBatchWriteItem, leadingKeys: []string{dynamo.CampaignRecipientKeysPattern}},
		{action: ddbPutItem, leadingKeys: []string{dynamo.CampaignKeysPattern, dynamo.IdempotencyKeysPattern}},
	},
}

// campaignCancelRoute is POST /campaigns/{id}/cancel: one conditional
// UpdateItem of the campaign's record (its old image comes back when the
// condition fails), besides its API key's count.
var campaignCancelRoute = access{
	name:    "campaign-cancel-route",
	apiKeys: true,
	keyed:   []keyedGrant{{action: ddbUpdateItem, leadingKeys: []string{dynamo.CampaignKeysPattern}}},
}

// automationEventsRoute is POST /automations/events: the contact, by id
// or by its email's claim (GetItem), and the event's listeners (Query);
// per listener one transaction that puts the event_key and live-run
// claims, the run and its safety wake-up (PutItem) and counts the
// automation's minute (UpdateItem); each started run's first wake-up on
// the automations queue. Nothing else of the table, and no SES: an event
// never sends by itself.
var automationEventsRoute = access{
	name:    "automation-events-route",
	apiKeys: true,
	keyed: []keyedGrant{
		{action: ddbGetItem, leadingKeys: []string{dynamo.ContactKeysPattern, dynamo.ContactEmailKeysPattern}},
		{action: ddbQuery, leadingKeys: []string{dynamo.AutomationListenerKeysPattern}},
		{action: ddbPutItem, leadingKeys: []string{
			dynamo.AutomationKeyKeysPattern, dynamo.AutomationLiveKeysPattern,
			dynamo.AutomationRunKeysPattern, dynamo.AutomationDueKeysPattern,
		}},
		{action: ddbUpdateItem, leadingKeys: []string{dynamo.AutomationRateKeysPattern}},
	},
	sendTo: []queue.Def{queue.Automations},
}

// publicRoute is a route served without an API key (routes.Route.Public):
// it reads no key and nothing of a workspace, so it has no grant at all
// besides its logs.
var publicRoute = access{name: "public-route"}

// unsubscribePages is GET and POST /unsubscribe/{token}, public pages
// whose signed token is the credential: no API key is read. The one-click
// POST updates the contact's subscription (UpdateItem of contact items
// only) or, for an address with no contact, puts it on the do-not-send
// list (PutItem of suppression items only). Nothing else of the table,
// not even a read.
var unsubscribePages = access{
	name: "unsubscribe-pages",
	keyed: []keyedGrant{
		{action: ddbUpdateItem, leadingKeys: []string{dynamo.ContactKeysPattern}},
		{action: ddbPutItem, leadingKeys: []string{dynamo.SuppressionKeysPattern}},
	},
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

	routes.AutomationEvents.Function: config.AutomationEvents{},

	routes.Review.Function:          config.Review{},
	routes.Status.Function:          config.Status{},
	routes.WebhookDispatch.Function: config.Dispatch{},
	routes.CampaignSender.Function:  config.CampaignSender{},
	routes.CampaignTick.Function:    config.CampaignTick{},

	routes.Dashboard.Function:        config.Dashboard{},
	routes.AutomationRunner.Function: config.AutomationRunner{},
	routes.AutomationTick.Function:   config.AutomationTick{},
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

// functionAccess is the permission table: one entry per function of
// routes.API and routes.Consumers, by function name. A function without an
// entry fails synth (and the tests); nothing falls back to a default. The
// functions of one profile share one IAM role that grants exactly the
// profile, so they must consume the same queue, or none
// (accessTableProblems).
var functionAccess = map[string]access{
	routes.ListEmails.Function:  readRoute,
	routes.GetEmail.Function:    readRoute,
	routes.Domains.Function:     readRoute,
	routes.Clicks.Function:      readRoute,
	routes.Events.Function:      readRoute,
	routes.Metrics.Function:     readRoute,
	routes.Send.Function:        sendRoute,
	routes.SendBatch.Function:   sendRoute,
	routes.OpenAPI.Function:     publicRoute,
	routes.Unsubscribe.Function: unsubscribePages,

	routes.ListContacts.Function:  readRoute,
	routes.GetContact.Function:    readRoute,
	routes.CreateContact.Function: contactWriteRoute,
	routes.UpdateContact.Function: contactWriteRoute,
	routes.DeleteContact.Function: contactWriteRoute,
	routes.CreateSegment.Function: segmentRoute,

	routes.SendBulk.Function:       sendBulkRoute,
	routes.ListCampaigns.Function:  readRoute,
	routes.GetCampaign.Function:    readRoute,
	routes.CancelCampaign.Function: campaignCancelRoute,

	routes.ListSuppressions.Function:  readRoute,
	routes.AddSuppressions.Function:   suppressionWriteRoute,
	routes.DeleteSuppression.Function: suppressionWriteRoute,

	routes.CheckDeliverability.Function: keyOnlyRoute,

	routes.AutomationEvents.Function: automationEventsRoute,

	routes.Review.Function:          reviewConsumer,
	routes.Status.Function:          statusConsumer,
	routes.WebhookDispatch.Function: webhookDispatchConsumer,
	routes.CampaignSender.Function:  campaignSenderConsumer,
	routes.CampaignTick.Function:    campaignTick,

	routes.Dashboard.Function:        dashboardSite,
	routes.AutomationRunner.Function: automationRunnerConsumer,
	routes.AutomationTick.Function:   automationTick,
}

// dashboardSite is the owner's dashboard (internal/dashboard over the
// owner service): it reads and writes what the owner's screens show
// (GetItem, BatchGetItem, Query on the table and its index), owner
// actions write items of the owner's workspace (PutItem, UpdateItem,
// DeleteItem, and ConditionCheckItem for the workspace check of their
// transactions), sign-in writes link, session and rate items. Sign-in
// links go out through SES (sendEmail). No queue yet: the screens that
// clear held email or start campaigns add the queue they send to.
var dashboardSite = access{
	name:         "dashboard",
	table:        []string{ddbGetItem, ddbBatchGetItem, ddbQuery, ddbPutItem, ddbUpdateItem, ddbDeleteItem, ddbConditionCheckItem},
	queryIndexes: true,
	sendEmail:    true,
}

// automationRunnerConsumer is the automation runner (internal/automation,
// dynamo.AutomationRuns): the run, its kept version, the contact, its
// do-not-send entry, the workspace, the sender and the month's usage
// (GetItem); the email's claim and a tagged contact (PutItem), its release
// and the live-run claim of an ended run (DeleteItem), the run's advance,
// a refused email marked failed and status changes (UpdateItem), an
// advance with a long wait's wake-up item in one transaction (Put and
// Update). A refused email is recorded as the status pipeline records it
// (feed, counts, webhook fan-out); a short wait goes back on its own
// queue with a delay (sendTo). Mail through SES with the configuration
// sets; links on the public URL.
var automationRunnerConsumer = access{
	name:      "automation-runner",
	table:     []string{ddbGetItem, ddbBatchGetItem, ddbQuery, ddbPutItem, ddbUpdateItem, ddbDeleteItem},
	sendTo:    []queue.Def{queue.Webhooks, queue.Automations},
	sendEmail: true,
}

// automationTick is the one-minute tick: each due minute's wake-up shards
// (Query) and their removal (BatchWriteItem), its cursor (GetItem,
// PutItem), of those partitions only; the runs go to the automations
// queue.
var automationTick = access{
	name:  "automation-tick",
	table: []string{},
	keyed: []keyedGrant{
		{action: ddbQuery, leadingKeys: []string{dynamo.AutomationWakeKeysPattern}},
		{action: ddbBatchWriteItem, leadingKeys: []string{dynamo.AutomationWakeKeysPattern}},
		{action: ddbGetItem, leadingKeys: []string{dynamo.AutomationTickKeysPattern}},
		{action: ddbPutItem, leadingKeys: []string{dynamo.AutomationTickKeysPattern}},
	},
	sendTo: []queue.Def{queue.Automations},
}

// campaignSenderConsumer is the campaign sender (internal/campaign/engine,
// dynamo.CampaignSends): the campaign, workspace, chunk, its progress and
// the month's usage (GetItem); the chunk's contacts and their do-not-send
// entries (BatchGetItem); the reputation hours (Query); the email's claim
// (PutItem), its release (DeleteItem), a refused one marked failed, the
// send slots, reputation counts and status changes (UpdateItem); each
// group's progress with the campaign's counts in one transaction (Put and
// Update). A refused email is recorded as the status pipeline records it
// (feed, counts, webhook fan-out); a chunk short of time goes back on its
// own queue (sendTo sends). Mail through SES with the configuration sets;
// the account's rate read with GetAccount; links on the public URL.
var campaignSenderConsumer = access{
	name:        "campaign-sender",
	table:       []string{ddbGetItem, ddbBatchGetItem, ddbQuery, ddbPutItem, ddbUpdateItem, ddbDeleteItem},
	sendTo:      []queue.Def{queue.Webhooks, queue.Sends},
	sendEmail:   true,
	readAccount: true,
}

// campaignTick is the one-minute tick: the due starts (Query), each
// campaign (GetItem), its move to sending (UpdateItem) and the due
// start's removal (DeleteItem), all of campaign and due-start items only;
// the chunks go to the sends queue.
var campaignTick = access{
	name:  "campaign-tick",
	table: []string{},
	keyed: []keyedGrant{
		{action: ddbQuery, leadingKeys: []string{dynamo.CampaignDueKeysPattern}},
		{action: ddbDeleteItem, leadingKeys: []string{dynamo.CampaignDueKeysPattern}},
		{action: ddbGetItem, leadingKeys: []string{dynamo.CampaignKeysPattern}},
		{action: ddbUpdateItem, leadingKeys: []string{dynamo.CampaignKeysPattern}},
	},
	sendTo: []queue.Def{queue.Sends},
}

// reviewConsumer is the review of held email: a held email's content
// chunks (Query on the table) and the emails held with a template (Query on
// an index); the template and the workspace (GetItem); the template's
// verdict, the release lease and a failed email (UpdateItem); the release
// transaction (Update of the email, Delete of its content chunks). Cleared
// email is sent through SES; an email not cleared is recorded as failed
// (feed item, count, webhook fan-out).
var reviewConsumer = access{
	name:         "review",
	table:        []string{ddbGetItem, ddbQuery, ddbPutItem, ddbUpdateItem, ddbDeleteItem},
	queryIndexes: true,
	sendTo:       []queue.Def{queue.Webhooks},
	sendEmail:    true,
}

// statusConsumer is the status pipeline: the email (GetItem); per SES
// event the feed or dedupe record, click record and suppression (PutItem)
// and the email, daily counter and monthly usage (UpdateItem), written in
// an order that needs no transaction; the workspace's webhook endpoints
// (Query). The webhook fan-out sends one message per subscribed endpoint to
// the webhooks queue (SendMessageBatch).
var statusConsumer = access{
	name:   "status",
	table:  []string{ddbGetItem, ddbQuery, ddbPutItem, ddbUpdateItem},
	sendTo: []queue.Def{queue.Webhooks},
}

// webhookDispatchConsumer is webhook delivery (internal/dynamo/webhooks.go,
// the DispatchStore methods): the endpoint (GetItem); the attempt log
// (PutItem); a job that may be a duplicate looks for its 2xx attempt in
// the endpoint's attempt log (DeliveredSince, Query); the endpoint's
// success and failure counters and auto-disable (UpdateItem). A retry is
// scheduled with ChangeMessageVisibility on its own queue, hence its URL.
//
// It POSTs to customer endpoints over the internet: no VPC. The SSRF guard
// runs in the code, at dial time (internal/webhook/client.go);
// SESAME_WEBHOOK_ALLOWED_PREFIXES, which lets the local stack reach
// loopback, is never set by this stack.
var webhookDispatchConsumer = access{
	name:        "webhook-dispatch",
	table:       []string{ddbGetItem, ddbQuery, ddbPutItem, ddbUpdateItem},
	ownQueueURL: true,
}

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
func (d functionDeps) profile(a access) *profileResources {
	if p, ok := d.profiles[a.name]; ok {
		return p
	}
	logs := awslogs.NewLogGroup(d.stack, jsii.String("Logs-"+a.name), &awslogs.LogGroupProps{
		Retention: logRetention,
	})
	p := &profileResources{logs: logs, role: d.newRole(a, logs)}
	d.profiles[a.name] = p
	return p
}

// newRole creates the role of profile a, its functions writing to logs.
// The grants are inline: no separate AWS::IAM::Policy, and no
// AWSLambdaBasicExecutionRole, which would let the functions write to every
// log group. A consumer's event source adds its consume grant to the
// role's default policy.
func (d functionDeps) newRole(a access, logs awslogs.LogGroup) awsiam.Role {
	statements := append(d.statements(a), awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Actions:   jsii.Strings(logsWriteActions...),
		Resources: &[]*string{logs.LogGroupArn()}, // the group and its streams
	}))
	return awsiam.NewRole(d.stack, jsii.String("Role-"+a.name), &awsiam.RoleProps{
		Description: jsii.String("Sesame functions of access profile " + a.name),
		AssumedBy:   awsiam.NewServicePrincipal(jsii.String("lambda.amazonaws.com"), nil),
		InlinePolicies: &map[string]awsiam.PolicyDocument{
			"access": awsiam.NewPolicyDocument(&awsiam.PolicyDocumentProps{Statements: &statements}),
		},
	})
}

// logsWriteActions are what a function needs to write its logs to an
// existing log group.
var logsWriteActions = []string{"logs:CreateLogStream", "logs:PutLogEvents"}

// accessOf is the permission-table entry of a function; a function without
// one is a programming error caught by synth and the tests.
func accessOf(function string) access {
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
	for _, q := range a.sendTo {
		env[queueURLVar(q)] = d.queue(q).QueueUrl()
	}
	if a.ownQueueURL {
		if consumes == nil {
			panic(fmt.Sprintf("infra: %s has ownQueueURL but consumes no queue", function))
		}
		env[queueURLVar(*consumes)] = d.queue(*consumes).QueueUrl()
	}
	if a.sendEmail {
		for _, cs := range d.configSets {
			env[cs.envVar] = cs.set.ConfigurationSetName()
		}
		if d.sesv2Endpoint != "" {
			env[sesv2EndpointVar] = jsii.String(d.sesv2Endpoint)
		}
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
func (d functionDeps) statements(a access) []awsiam.PolicyStatement {
	var out []awsiam.PolicyStatement
	allow := func(actions []string, resources ...*string) {
		out = append(out, awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
			Actions:   jsii.Strings(actions...),
			Resources: &resources,
		}))
	}
	if len(a.table) > 0 {
		allow(a.table, d.table.TableArn())
	}
	if a.queryIndexes {
		allow([]string{ddbQuery}, jsii.String(*d.table.TableArn()+"/index/*"))
	}
	if a.apiKeys {
		out = append(out, awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
			Actions:   jsii.Strings(ddbUpdateItem),
			Resources: &[]*string{d.table.TableArn()},
			Conditions: &map[string]any{
				"ForAllValues:StringLike": map[string]any{"dynamodb:LeadingKeys": []string{"APIKEY#*"}},
			},
		}))
	}
	for _, k := range a.keyed {
		out = append(out, awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
			Actions:   jsii.Strings(k.action),
			Resources: &[]*string{d.table.TableArn()},
			Conditions: &map[string]any{
				"ForAllValues:StringLike": map[string]any{"dynamodb:LeadingKeys": k.leadingKeys},
			},
		}))
	}
	for _, q := range a.sendTo {
		allow([]string{"sqs:SendMessage"}, d.queue(q).QueueArn())
	}
	if a.sendEmail {
		resources := []*string{d.identityArn}
		for _, cs := range d.configSets {
			resources = append(resources, cs.arn)
		}
		allow(sesSendActions, resources...)
	}
	if a.readAccount {
		allow([]string{"ses:GetAccount"}, jsii.String("*"))
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
	profiles := map[string]access{}
	for fn, a := range functionAccess {
		if !names[fn] {
			problems = append(problems, fmt.Sprintf("functionAccess entry %q names no route or consumer", fn))
		}
		if a.name == "" {
			problems = append(problems, fmt.Sprintf("%s: its access profile has no name", fn))
		} else if p, ok := profiles[a.name]; ok && !reflect.DeepEqual(p, a) {
			problems = append(problems, fmt.Sprintf("two different access profiles are named %q", a.name))
		}
		profiles[a.name] = a
		for _, q := range a.sendTo {
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
		name := functionAccess[fn].name
		q, seen := queueOfProfile[name]
		if seen && q != consumes[fn] {
			problems = append(problems, fmt.Sprintf("access profile %q is shared by functions that consume different queues (or none)", name))
		}
		queueOfProfile[name] = consumes[fn]
	}
	for _, c := range routes.Consumers {
		if _, ok := queueURLVars[c.Queue.Name]; functionAccess[c.Function].ownQueueURL && !ok {
			problems = append(problems, fmt.Sprintf("%s needs the URL of queue %s, which has no entry in queueURLVars", c.Function, c.Queue.Name))
		}
	}
	return problems
}
