package grants

import (
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/routes"
)

// functionAccess is the permission Table: one entry per function of
// routes.API and routes.Consumers, by function name. A function without an
// entry fails synth (and the tests); nothing falls back to a default. The
// functions of one profile share one IAM role that grants exactly the
// profile, so they must consume the same queue, or none
// (infra's accessTableProblems).
var ByFunction = map[string]Profile{
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
	routes.CancelEmail.Function:    emailCancelRoute,

	routes.ListSuppressions.Function:  readRoute,
	routes.AddSuppressions.Function:   suppressionWriteRoute,
	routes.DeleteSuppression.Function: suppressionWriteRoute,

	routes.CheckDeliverability.Function: checkRoute,

	routes.AutomationEvents.Function: automationEventsRoute,

	routes.ListTemplates.Function:  readRoute,
	routes.GetTemplate.Function:    readRoute,
	routes.CreateTemplate.Function: templateWriteRoute,
	routes.UpdateTemplate.Function: templateWriteRoute,
	routes.DeleteTemplate.Function: templateWriteRoute,

	routes.Review.Function:          reviewConsumer,
	routes.Status.Function:          statusConsumer,
	routes.WebhookDispatch.Function: webhookDispatchConsumer,
	routes.CampaignSender.Function:  campaignSenderConsumer,
	routes.CampaignTick.Function:    campaignTick,

	routes.AutomationRunner.Function: automationRunnerConsumer,
	routes.AutomationTick.Function:   automationTick,

	routes.Dashboard.Function:  dashboardSite,
	routes.AuthServer.Function: authServer,
	routes.MCP.Function:        mcpEndpoint,
}

// mcpEndpoint is the MCP endpoint (internal/mcpserver): its tools are the
// send, read, contact, automation-event and deliverability routes called
// in-process, so it may do what those routes do together (sendRoute,
// readRoute, contactWriteRoute, automationEventsRoute, checkRoute), plus
// draft_campaign's suggestion, which writes what a draft writes
// (sendBulkRoute: the frozen recipients' chunks, the campaign record), and
// no more: no segment, no campaign approval, no do-not-send write is a tool.
var mcpEndpoint = Profile{
	Name:         "mcp",
	Table:        []string{GetItem, BatchGetItem, Query, PutItem, UpdateItem, DeleteItem},
	QueryIndexes: true,
	APIKeys:      true,
	Keyed: []Keyed{{Action: BatchWriteItem, LeadingKeys: []string{
		dynamo.EmailKeysPattern, dynamo.EmailContentKeysPattern, dynamo.CampaignRecipientKeysPattern,
	}}},
	SendTo:    []queue.Def{queue.Review, queue.Webhooks, queue.Automations},
	SendEmail: true,
}

// authServer is the OAuth authorization server (internal/oauth): it
// registers clients, redeems codes, issues, rotates and revokes tokens and
// writes grants and their audit entries, on its own partitions only (an
// access token is an API key secret record).
var authServer = Profile{
	Name: "oauth",
	Keyed: []Keyed{
		{Action: GetItem, LeadingKeys: dynamo.OAuthKeysPatterns},
		{Action: PutItem, LeadingKeys: dynamo.OAuthKeysPatterns},
		{Action: UpdateItem, LeadingKeys: dynamo.OAuthKeysPatterns},
		{Action: DeleteItem, LeadingKeys: dynamo.OAuthKeysPatterns},
	},
}

// readRoute is a GET route: every /api/v1 request reads its API key and
// counts it in the key's rate-limit window (APIKeys), then the route reads
// (GetItem, or a Query on the table or an index).
var readRoute = Profile{
	Name:         "read-route",
	Table:        []string{GetItem, Query},
	QueryIndexes: true,
	APIKeys:      true,
}

// sendRoute is POST /send and /send/batch: the send context in one
// BatchGetItem; puts of the email, its kept content, the Idempotency-Key
// record and held content (in transactions, or the email and its kept
// content in one BatchWriteItem, which an undo deletes alike), and the
// conditional put of a layout's reference of the day; updates of
// the key's answer, of a failed email and of the rate-limit count;
// deletes that undo a failed accept. Held email goes to the review queue;
// the rest goes out through SES. A send that fails before SES takes it is
// recorded like the status pipeline records events: the feed item, the
// failed count, and the webhook fan-out (the workspace's endpoints, a
// Query on the table). A send of a stored template reads it, and the
// recipient's contact when it reads contact variables (GetItem).
var sendRoute = Profile{
	Name:      "send-route",
	Table:     []string{GetItem, BatchGetItem, PutItem, UpdateItem, DeleteItem, Query},
	Keyed:     []Keyed{{Action: BatchWriteItem, LeadingKeys: []string{dynamo.EmailKeysPattern, dynamo.EmailContentKeysPattern}}},
	SendTo:    []queue.Def{queue.Review, queue.Webhooks},
	SendEmail: true,
}

// contactWriteRoute is a contact write (create, update, delete): it reads
// the contact and its email claim (GetItem) and writes both in one
// transaction, whose items are authorized as PutItem and DeleteItem. It
// updates nothing but its API key's count.
var contactWriteRoute = Profile{
	Name:    "contact-write-route",
	Table:   []string{GetItem, PutItem, DeleteItem},
	APIKeys: true,
}

// templateWriteRoute is a stored template's create, update and delete:
// it reads the template and its layout's verdict (GetItem), writes the
// template and its kept version in one transaction (PutItem), records the
// layout's verdict (UpdateItem), and deletes the template (DeleteItem)
// and its versions (a Query, then BatchWriteItem), besides its API key's
// count. Writes reach those kinds only.
var templateWriteRoute = Profile{
	Name:    "template-write-route",
	Table:   []string{GetItem, Query},
	APIKeys: true,
	Keyed: []Keyed{
		{Action: PutItem, LeadingKeys: []string{dynamo.StoredTemplateKeysPattern, dynamo.StoredTemplateVersionKeysPattern}},
		{Action: UpdateItem, LeadingKeys: []string{dynamo.LayoutKeysPattern}},
		{Action: DeleteItem, LeadingKeys: []string{dynamo.StoredTemplateKeysPattern}},
		{Action: BatchWriteItem, LeadingKeys: []string{dynamo.StoredTemplateVersionKeysPattern}},
	},
}

// suppressionWriteRoute is POST and DELETE /suppressions: the key lookup
// and rate limit (APIKeys), then one conditional PutItem per address added
// (a listed address comes back in the failed condition, no read needed) or
// a conditional DeleteItem of its shard and of the partition before the
// shards. No Query, no index, no other item.
var suppressionWriteRoute = Profile{
	Name:    "suppression-write-route",
	Table:   []string{PutItem, DeleteItem},
	APIKeys: true,
}

// segmentRoute is POST /segments: it reads the workspace's do-not-send
// list (Query of its GSI1 list) and every contact shard (Query on the
// table) and puts the segment (PutItem), besides its API key's count.
var segmentRoute = Profile{
	Name:         "segment-route",
	Table:        []string{Query, PutItem},
	QueryIndexes: true,
	APIKeys:      true,
}

// checkRoute is POST /deliverability/check: besides the key lookup and
// rate limit (APIKeys), it reads the workspace's record (GetItem) for the
// brands it owns, as /send's review does; it writes nothing.
var checkRoute = Profile{
	Name:    "check-route",
	APIKeys: true,
	Keyed:   []Keyed{{Action: GetItem, LeadingKeys: []string{dynamo.WorkspaceKeysPattern}}},
}

// sendBulkRoute is POST /send/bulk: it reads the Idempotency-Key record,
// the workspace and the segment (GetItem), the do-not-send list (Query of
// its GSI1 list) and every contact shard (Query), and writes the frozen recipients' chunks
// (BatchWriteItem, deleted again by a request that lost its key to a
// twin) and then, in one transaction, the campaign record and the key's
// record (PutItem). Writes reach those items only; nothing is queued or
// sent: a draft waits for the owner.
var sendBulkRoute = Profile{
	Name:         "send-bulk-route",
	Table:        []string{GetItem, Query},
	QueryIndexes: true,
	APIKeys:      true,
	Keyed: []Keyed{
		{Action: BatchWriteItem, LeadingKeys: []string{dynamo.CampaignRecipientKeysPattern}},
		{Action: PutItem, LeadingKeys: []string{dynamo.CampaignKeysPattern, dynamo.IdempotencyKeysPattern}},
	},
}

// campaignCancelRoute is POST /campaigns/{id}/cancel: one conditional
// UpdateItem of the campaign's record (its old image comes back when the
// condition fails), besides its API key's count.
var campaignCancelRoute = Profile{
	Name:    "campaign-cancel-route",
	APIKeys: true,
	Keyed:   []Keyed{{Action: UpdateItem, LeadingKeys: []string{dynamo.CampaignKeysPattern}}},
}

// emailCancelRoute is POST /emails/{id}/cancel: the email (GetItem, at
// its shard, else where emails were kept before the shards), its
// held content's chunks (Query), and one transaction moving the email to
// cancelled (UpdateItem) and deleting the chunks (DeleteItem). No SES,
// no queue: a cancel never sends.
var emailCancelRoute = Profile{
	Name:    "email-cancel-route",
	APIKeys: true,
	Keyed: []Keyed{
		{Action: GetItem, LeadingKeys: []string{dynamo.EmailKeysPattern, dynamo.LegacyEmailKeysPattern}},
		{Action: UpdateItem, LeadingKeys: []string{dynamo.EmailKeysPattern}},
		{Action: Query, LeadingKeys: []string{dynamo.HeldKeysPattern}},
		{Action: DeleteItem, LeadingKeys: []string{dynamo.HeldKeysPattern}},
	},
}

// automationEventsRoute is POST /automations/events: the contact, by id
// or by its email's claim (GetItem), and the event's listeners (Query);
// per listener one transaction that puts the event_key and live-run
// claims, the run and its safety wake-up (PutItem) and counts the
// automation's minute (UpdateItem); each started run's first wake-up on
// the automations queue. Nothing else of the table, and no SES: an event
// never sends by itself.
var automationEventsRoute = Profile{
	Name:    "automation-events-route",
	APIKeys: true,
	Keyed: []Keyed{
		{Action: GetItem, LeadingKeys: []string{dynamo.ContactKeysPattern, dynamo.ContactEmailKeysPattern}},
		{Action: Query, LeadingKeys: []string{dynamo.AutomationListenerKeysPattern}},
		{Action: PutItem, LeadingKeys: []string{
			dynamo.AutomationKeyKeysPattern, dynamo.AutomationLiveKeysPattern,
			dynamo.AutomationRunKeysPattern, dynamo.AutomationDueKeysPattern,
		}},
		{Action: UpdateItem, LeadingKeys: []string{dynamo.AutomationRateKeysPattern}},
	},
	SendTo: []queue.Def{queue.Automations},
}

// publicRoute is a route served without an API key (routes.Route.Public):
// it reads no key and nothing of a workspace, so it has no grant at all
// besides its logs.
var publicRoute = Profile{Name: "public-route"}

// unsubscribePages is GET and POST /unsubscribe/{token}, public pages
// whose signed token is the credential: no API key is read. The one-click
// POST updates the contact's subscription (UpdateItem of contact items
// only) or, for an address with no contact, puts it on the do-not-send
// list (PutItem of suppression items only). Nothing else of the table,
// not even a read.
var unsubscribePages = Profile{
	Name: "unsubscribe-pages",
	Keyed: []Keyed{
		{Action: UpdateItem, LeadingKeys: []string{dynamo.ContactKeysPattern}},
		{Action: PutItem, LeadingKeys: []string{dynamo.SuppressionKeysPattern}},
	},
}

// automationRunnerConsumer is the automation runner (internal/automation,
// automationdb.AutomationRuns): the run, its kept version, the contact, its
// do-not-send entry, the workspace, the sender and the month's usage
// (GetItem); the email's claim and a tagged contact (PutItem), its release
// and the live-run claim of an ended run (DeleteItem), the run's advance,
// a refused email marked failed and status changes (UpdateItem), an
// advance with a long wait's wake-up item in one transaction (Put and
// Update). A refused email is recorded as the status pipeline records it
// (feed, counts, webhook fan-out); a short wait goes back on its own
// queue with a delay (SendTo). Mail through SES with the configuration
// sets, paced by the send slots (GetItem, UpdateItem) at the account's
// rate read with GetAccount; links on the public URL.
var automationRunnerConsumer = Profile{
	Name:        "automation-runner",
	Table:       []string{GetItem, BatchGetItem, Query, PutItem, UpdateItem, DeleteItem},
	SendTo:      []queue.Def{queue.Webhooks, queue.Automations},
	SendEmail:   true,
	ReadAccount: true,
}

// automationTick is the one-minute tick: each due minute's wake-up shards
// (Query) and their removal (BatchWriteItem), its cursor (GetItem,
// PutItem), of those partitions only; the runs go to the automations
// queue, the due scheduled emails to the review queue.
var automationTick = Profile{
	Name:  "automation-tick",
	Table: []string{},
	Keyed: []Keyed{
		{Action: Query, LeadingKeys: []string{dynamo.AutomationWakeKeysPattern}},
		{Action: BatchWriteItem, LeadingKeys: []string{dynamo.AutomationWakeKeysPattern}},
		{Action: GetItem, LeadingKeys: []string{dynamo.AutomationTickKeysPattern}},
		{Action: PutItem, LeadingKeys: []string{dynamo.AutomationTickKeysPattern}},
	},
	SendTo: []queue.Def{queue.Automations, queue.Review},
}

// campaignSenderConsumer is the campaign sender (internal/campaign/engine,
// listmaildb.ListSends): the campaign, workspace, chunk, its progress and
// the month's usage (GetItem); the chunk's contacts and their do-not-send
// entries (BatchGetItem); the reputation hours (Query); the email's claim
// (PutItem), its release (DeleteItem), a refused one marked failed, the
// send slots, reputation counts and status changes (UpdateItem); each
// group's progress with the campaign's counts in one transaction (Put and
// Update). A refused email is recorded as the status pipeline records it
// (feed, counts, webhook fan-out); a chunk short of time goes back on its
// own queue (SendTo sends). Mail through SES with the configuration sets;
// the account's rate read with GetAccount; links on the public URL.
var campaignSenderConsumer = Profile{
	Name:        "campaign-sender",
	Table:       []string{GetItem, BatchGetItem, Query, PutItem, UpdateItem, DeleteItem},
	SendTo:      []queue.Def{queue.Webhooks, queue.Sends},
	SendEmail:   true,
	ReadAccount: true,
}

// campaignTick is the one-minute tick: the due starts (Query), each
// campaign's record (GetItem), its move to sending (UpdateItem) and the due
// start's removal (DeleteItem), all of campaign and due-start items only;
// the chunks go to the sends queue.
var campaignTick = Profile{
	Name:  "campaign-tick",
	Table: []string{},
	Keyed: []Keyed{
		{Action: Query, LeadingKeys: []string{dynamo.CampaignDueKeysPattern}},
		{Action: DeleteItem, LeadingKeys: []string{dynamo.CampaignDueKeysPattern}},
		{Action: GetItem, LeadingKeys: []string{dynamo.CampaignKeysPattern}},
		{Action: UpdateItem, LeadingKeys: []string{dynamo.CampaignKeysPattern}},
	},
	SendTo: []queue.Def{queue.Sends},
}

// reviewConsumer is the review of held email: a held email's content
// chunks (Query on the table) and the emails held with a template (Query on
// an index); the template and the workspace (GetItem); the template's
// verdict, the release lease and a failed email (UpdateItem); the release
// transaction (Update of the email, Delete of its content chunks). Cleared
// email is sent through SES; an email not cleared is recorded as failed
// (feed item, count, webhook fan-out).
var reviewConsumer = Profile{
	Name:         "review",
	Table:        []string{GetItem, Query, PutItem, UpdateItem, DeleteItem},
	QueryIndexes: true,
	SendTo:       []queue.Def{queue.Webhooks},
	SendEmail:    true,
}

// statusConsumer is the status pipeline: the email (GetItem); per SES
// event the feed or dedupe record, click record and suppression (PutItem)
// and the email, daily counter and monthly usage (UpdateItem), written in
// an order that needs no transaction; the workspace's webhook endpoints
// (Query). The webhook fan-out sends one message per subscribed endpoint to
// the webhooks queue (SendMessageBatch).
var statusConsumer = Profile{
	Name:   "status",
	Table:  []string{GetItem, Query, PutItem, UpdateItem},
	SendTo: []queue.Def{queue.Webhooks},
}

// webhookDispatchConsumer is webhook delivery (internal/dynamo/webhookdb,
// the DispatchStore methods): the endpoint (GetItem); the attempt log, an
// item per endpoint a batch (PutItem, or BatchWriteItem for several
// endpoints, on the attempt log's keys only); a job that may be a duplicate looks for its 2xx attempt in
// the endpoint's attempt log (DeliveredSince, Query); the endpoint's
// success and failure counters and auto-disable (UpdateItem). A retry is
// scheduled with ChangeMessageVisibility on its own queue, hence its URL.
//
// It POSTs to customer endpoints over the internet: no VPC. The SSRF guard
// runs in the code, at dial time (internal/webhook/client.go);
// SESAME_WEBHOOK_ALLOWED_PREFIXES, which lets the local stack reach
// loopback, is never set by this stack.
var webhookDispatchConsumer = Profile{
	Name:        "webhook-dispatch",
	Table:       []string{GetItem, Query, PutItem, UpdateItem},
	Keyed:       []Keyed{{Action: BatchWriteItem, LeadingKeys: []string{dynamo.WebhookAttemptKeysPattern}}},
	OwnQueueURL: true,
}

// dashboardSite is the owner's dashboard (internal/dashboard over the
// owner service): it reads and writes what the owner's screens show
// (GetItem, BatchGetItem, Query on the table and its index), owner
// actions write items of the owner's workspace (PutItem, UpdateItem,
// DeleteItem, and ConditionCheckItem for the workspace check of their
// transactions), sign-in writes link, session and rate items. Sign-in
// links go out through SES (SignInMail). The owner's verdicts on held
// email go to the review queue, approved campaigns' chunks to the sends
// queue, as the console's do.
var dashboardSite = Profile{
	Name:         "dashboard",
	Table:        []string{GetItem, BatchGetItem, Query, PutItem, UpdateItem, DeleteItem, ConditionCheckItem},
	QueryIndexes: true,
	SendTo:       []queue.Def{queue.Review, queue.Sends},
	SignInMail:   true,
}
