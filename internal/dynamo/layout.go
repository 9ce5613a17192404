package dynamo

import (
	"hash/fnv"
	"strconv"
	"strings"
	"time"

	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/sesame-mail/sesame/internal/dynamo/schema"
)

// The table's key layout, every prefix in one place. Workspace data lives
// under WS#<workspace id>#<kind>[#<sub id>], so a foreign id is
// structurally unreadable; only API-key secrets and domain claims live
// outside every workspace, and only the console's workspace list is outside
// one on GSI1.
const (
	workspacePrefix = "WS#"

	// The workspace record itself (sk WORKSPACE).
	KindWorkspace = "WORKSPACE"
	// API key descriptions (sk = key id); the secrets are apiKeyPrefix items.
	kindKeys = "KEYS"
	// Domains by name; DOMAINS is their GSI1 list, newest first by id.
	kindDomain     = "DOMAIN"
	kindDomainList = "DOMAINS"
	// Senders (sk = sender id).
	kindSender = "SENDER"
	// Emails, sharded by their id (EMAIL#<shard>, sk = UUIDv7 id, so a
	// reverse Query of a shard is newest first); items of the layout
	// before the shards are under EMAIL alone, read as one more shard.
	// There is deliberately no status index: it would double the write
	// cost of every status change; filters read within the Query, under a
	// budget.
	KindEmail = "EMAIL"
	// The content a transactional email was sent with (BODY#<email id>,
	// sk = CONTENT: a partition per email, so sending heats none), TTL
	// email.ContentKept.
	kindEmailContent = "BODY"
	// Idempotency-Key records, sharded by the key (IDEM#<shard>, sk =
	// environment-scoped key), TTL 24 h.
	kindIdempotency = "IDEM"
	// Template verdicts of the security review (sk = fingerprint), and
	// each layout's reference content of a UTC day, which that day's kept
	// content is stored as a difference from (sk = REF#<fingerprint>#
	// <yyyy-mm-dd>, TTL the end of that day + email.ContentKept).
	kindTemplate = "TEMPLATE"
	// Held email content in chunks (HELD#<email id>, sk = chunk number),
	// and on GSI1 the held emails of one template (HELDTPL#<fingerprint>).
	kindHeld           = "HELD"
	kindHeldByTemplate = "HELDTPL"
	// The do-not-send list, sharded by the address (SUPPRESSION#<shard>,
	// sk = lowercased address, read by every send; before the shards,
	// SUPPRESSION alone, still read); SUPPRESSIONS is its GSI1 list, newest
	// first (gsi1sk = created time, then the address).
	kindSuppression     = "SUPPRESSION"
	kindSuppressionList = "SUPPRESSIONS"
	// Monthly usage against the allowance, each month's count spread over
	// UsageShards items (USAGE#<shard>, sk = YYYY-MM; before, USAGE
	// alone), summed when read.
	kindUsage = "USAGE"
	// The events feed, sharded by event id (EVENT#<shard>, sk = event
	// time, then id; the layout before the shards under EVENT alone), and
	// the dedupe records of SES events the feed does not show, sharded by
	// that id (SESEVENT#<shard>, sk = SES event id, TTL 14 days).
	kindEvent  = "EVENT"
	kindDedupe = "SESEVENT"
	// Daily counters, each day's counts spread over CounterShards items
	// (METRICS#<shard>, sk = YYYY-MM-DD; before, METRICS alone), summed
	// when read.
	kindMetrics = "METRICS"
	// Clicks of one email (CLICK#<email id>, sk = click time, then id).
	kindClick = "CLICK"
	// Webhook endpoints (sk = id); per endpoint the attempt log, sharded
	// by email id, so an email's attempts are in one shard
	// (WHATTEMPT#<endpoint>#<shard>, sk = time, then event id;
	// before, WHATTEMPT#<endpoint> alone) with a TTL.
	// WHDELIVERY#<endpoint> (sk = event id) held final-failure records,
	// no longer written or read; kept so the old items, which expire by
	// their TTL, still belong to a workspace.
	kindWebhook         = "WEBHOOK"
	kindWebhookDelivery = "WHDELIVERY"
	KindWebhookAttempt  = "WHATTEMPT"
	// Contacts, sharded over ContactShards partitions by their id
	// (CONTACT#<shard>, sk = UUIDv7 id, so a reverse Query of a shard is
	// newest first), and the claim of each email, sharded by the email
	// (CONTACTEMAIL#<shard>, sk = lowercased email, holding the id).
	kindContact      = "CONTACT"
	kindContactEmail = "CONTACTEMAIL"
	// The send engine: which recipients of a campaign chunk are done
	// (CAMPAIGNPROG#<campaign id>, sk = chunk number), and the hourly
	// campaign and automation sends, bounces and complaints the
	// reputation breaker reads (sk = YYYY-MM-DDTHH, TTL 8 days).
	KindCampaignProgress = "CAMPAIGNPROG"
	kindReputation       = "REPUTATION"
	// Segments (sk = UUIDv7 id): a name and a filter, never members.
	kindSegment = "SEGMENT"
	// Stored templates at their latest version (sk = UUIDv7 id, so a
	// reverse Query is newest first), and each version kept unchanged
	// (STPLVER#<template id>, sk = zero-padded version).
	kindStoredTemplate        = "STPL"
	kindStoredTemplateVersion = "STPLVER"
	// Campaigns (sk = UUIDv7 id, so a reverse Query is newest first), and
	// the parts each froze at draft time (CAMPAIGNRCPT#<campaign id>): its
	// recipients (CAMPAIGNRCPT#<campaign id>#<chunk mod chunkShards>, sk =
	// zero-padded chunk number, campaign.ChunkSize ids per chunk; before
	// the shards, under CAMPAIGNRCPT#<campaign id>) and its html (sk = html).
	kindCampaign           = "CAMPAIGN"
	kindCampaignRecipients = "CAMPAIGNRCPT"

	// Automations (sk = UUIDv7 id) with their current steps, and each
	// version of their steps kept unchanged (AUTOVER#<automation id>,
	// sk = zero-padded version) for the runs that execute it. The active
	// automations listening for one event name (AUTOEVENT#<event>, sk =
	// automation id, holding the version a new run executes).
	KindAutomation         = "AUTOMATION"
	KindAutomationVersion  = "AUTOVER"
	KindAutomationListener = "AUTOEVENT"
	// How many automations listen for each event name (sk = event name),
	// so activation holds automation.MaxActivePerEvent atomically.
	KindAutomationListenerCount = "AUTOEVENTS"
	// Per automation: the event_keys that started a run, for ever
	// (AUTOKEY#<automation id>, sk = event_key), the contacts with a live
	// run (AUTOLIVE#<automation id>, sk = contact id), the events counted
	// per minute (AUTORATE#<automation id>, sk = minute, TTL), and its runs
	// (AUTORUN#<automation id>, sk = UUIDv7 run id).
	KindAutomationKey  = "AUTOKEY"
	KindAutomationLive = "AUTOLIVE"
	KindAutomationRate = "AUTORATE"
	KindAutomationRun  = "AUTORUN"

	// The owners of a workspace (sk = address), who sign in to its
	// dashboard, and its audit log of their actions (sk = time, then a
	// random suffix; a reverse Query is newest first).
	kindOwner = "OWNER"
	kindAudit = "AUDIT"
	// The connections (OAuth grants) an owner approved (sk = UUIDv7 id).
	kindOAuthGrant = "OAUTHGRANT"

	// Outside every workspace: the API key secret record, keyed by the
	// Key's hash and read on every request (it holds the rate-limit
	// counters), and the claim of a domain by one workspace (SES
	// identities are account-wide).
	apiKeyPrefix      = "APIKEY#"
	APIKeySecretSK    = "APIKEY"
	domainClaimPrefix = "DOMAINCLAIM#"
	DomainClaimSK     = "CLAIM"
	// The account's SES send slots per second (sk = unix second, TTL),
	// shared by every campaign sender, and the due starts of scheduled
	// campaigns of every workspace (sk = time#workspace#campaign), read by
	// the one-minute tick.
	PacePK = "SESPACE"
	DuePK  = "CAMPAIGNDUE"
	// The wake-ups of automation runs waiting longer than a queue's delay
	// can hold, by due minute and shard (AUTODUE#<minute>#<shard>, sk =
	// workspace#automation#run; a scheduled email's: workspace#EMAIL#id), and the tick's cursor (AUTOTICK): the
	// last minute it swept.
	AutoDuePrefix = "AUTODUE#"
	AutoTickPK    = "AUTOTICK"
	// The dashboard's sign-in, outside every workspace because it starts
	// from an address alone: the workspaces an address owns
	// (OWNER#<address>, sk = workspace id), pending sign-in links and
	// sessions under the SHA-256 of their secret (SIGNINLINK#<hash>,
	// SESSION#<hash>, TTL), and the link requests counted per address or
	// IP and 15-minute window (SIGNINRATE#<who>, sk = window, TTL).
	ownerPrefix      = "OWNER#"
	SigninLinkPrefix = "SIGNINLINK#"
	SessionPrefix    = "SESSION#"
	SigninRatePrefix = "SIGNINRATE#"
	// The OAuth authorization server, outside every workspace because a
	// client registers and redeems before any workspace is named: clients
	// (TTL until approved), authorization codes and refresh tokens under
	// the SHA-256 of their secret (TTL). Access tokens are API key secret
	// records (apiKeyPrefix) with a TTL and their grant's id.
	OAuthClientPrefix  = "OAUTHCLIENT#"
	OAuthClientSK      = "CLIENT"
	OAuthCodePrefix    = "OAUTHCODE#"
	OAuthCodeSK        = "CODE"
	OAuthRefreshPrefix = "OAUTHREFRESH#"
	OAuthRefreshSK     = "REFRESH"

	// On GSI1 outside every workspace: the console's list of workspaces.
	WorkspacesListPK = "WORKSPACES"
)

// Partition key patterns for IAM's dynamodb:LeadingKeys (StringLike: *
// is any run of characters): a function limited to them reaches only
// those items (infra's permission table).
var (
	// WorkspaceKeysPattern matches every workspace's own record (its
	// name, brands and settings), and no other kind.
	WorkspaceKeysPattern = WSPK("*", KindWorkspace)
	// ContactKeysPattern matches the contacts of every workspace, every
	// shard, and no other kind (not the email claims).
	ContactKeysPattern = WSPK("*", kindContact) + "#*"
	// SuppressionKeysPattern matches every workspace's do-not-send list,
	// every shard (what is written; the partition before the shards is
	// only read and deleted from).
	SuppressionKeysPattern = WSPK("*", kindSuppression) + "#*"
	// CampaignKeysPattern matches every workspace's campaign records,
	// CampaignRecipientKeysPattern their frozen recipients' chunks and
	// html, and
	// IdempotencyKeysPattern the Idempotency-Key records.
	CampaignKeysPattern = WSPK("*", kindCampaign)
	// CampaignDueKeysPattern is the due starts' partition (the tick's).
	CampaignDueKeysPattern       = DuePK
	CampaignRecipientKeysPattern = WSPK("*", kindCampaignRecipients) + "#*"
	IdempotencyKeysPattern       = WSPK("*", kindIdempotency) + "#*"
	// EmailKeysPattern matches every workspace's emails, and
	// EmailContentKeysPattern the kept content of each.
	EmailKeysPattern = WSPK("*", KindEmail) + "#*"
	// HeldKeysPattern matches the content of every held or scheduled
	// email.
	HeldKeysPattern = WSPK("*", kindHeld) + "#*"
	// WebhookAttemptKeysPattern matches every endpoint's attempt log.
	WebhookAttemptKeysPattern = WSPK("*", KindWebhookAttempt) + "#*"
	EmailContentKeysPattern   = WSPK("*", kindEmailContent) + "#*"
	// LegacyEmailKeysPattern matches the one partition every email of a
	// workspace had before the shards (read as a fallback for old emails).
	LegacyEmailKeysPattern = WSPK("*", KindEmail)
	// ContactEmailKeysPattern matches the contacts' email claims, every
	// shard, and no other kind.
	ContactEmailKeysPattern = WSPK("*", kindContactEmail) + "#*"
	// The automation kinds an event reads or writes: the listeners of an
	// event name, the event_key and live-run claims, the per-minute
	// counts, the runs, and the wake-ups outside every workspace.
	AutomationListenerKeysPattern = WSPK("*", KindAutomationListener) + "#*"
	AutomationKeyKeysPattern      = WSPK("*", KindAutomationKey) + "#*"
	AutomationLiveKeysPattern     = WSPK("*", KindAutomationLive) + "#*"
	AutomationRateKeysPattern     = WSPK("*", KindAutomationRate) + "#*"
	AutomationRunKeysPattern      = WSPK("*", KindAutomationRun) + "#*"
	AutomationDueKeysPattern      = AutoDuePrefix + "*"
	// StoredTemplateKeysPattern matches every workspace's stored
	// templates, StoredTemplateVersionKeysPattern their kept versions, and
	// LayoutKeysPattern the security review's verdicts on layouts.
	StoredTemplateKeysPattern        = WSPK("*", kindStoredTemplate)
	StoredTemplateVersionKeysPattern = WSPK("*", kindStoredTemplateVersion) + "#*"
	LayoutKeysPattern                = WSPK("*", kindTemplate)
	// OAuthKeysPatterns match what the authorization server reads and
	// writes: its clients, codes and refresh tokens, the access tokens
	// (API key secret records), and every workspace's grants and audit
	// log.
	OAuthKeysPatterns = []string{
		OAuthClientPrefix + "*", OAuthCodePrefix + "*", OAuthRefreshPrefix + "*", apiKeyPrefix + "*",
		WSPK("*", kindOAuthGrant), WSPK("*", kindAudit),
	}
)

// WorkspaceKinds are the kinds of workspace data, for CheckKeyLayout.
var WorkspaceKinds = []string{
	KindWorkspace, kindKeys, kindDomain, kindDomainList, kindSender, KindEmail, kindEmailContent, kindIdempotency,
	kindTemplate, kindHeld, kindHeldByTemplate, kindSuppression, kindSuppressionList, kindUsage, kindEvent, kindDedupe,
	kindMetrics, kindClick, kindWebhook, kindWebhookDelivery, KindWebhookAttempt,
	kindContact, kindContactEmail, KindCampaignProgress, kindReputation,
	kindSegment, kindStoredTemplate, kindStoredTemplateVersion,
	kindCampaign, kindCampaignRecipients,
	KindAutomation, KindAutomationVersion, KindAutomationListener, KindAutomationListenerCount,
	KindAutomationKey, KindAutomationLive, KindAutomationRate, KindAutomationRun,
	kindOwner, kindAudit, kindOAuthGrant,
}

// GlobalPrefixes are the partition key prefixes outside every workspace,
// and GlobalIndexKeys the GSI1 partitions outside every workspace.
var (
	GlobalPrefixes = []string{apiKeyPrefix, domainClaimPrefix, PacePK, DuePK, AutoDuePrefix, AutoTickPK,
		ownerPrefix, SigninLinkPrefix, SessionPrefix, SigninRatePrefix,
		OAuthClientPrefix, OAuthCodePrefix, OAuthRefreshPrefix}
	GlobalIndexKeys = []string{WorkspacesListPK}
)

// WorkspaceOf splits a key of workspace data into the workspace id and the
// kind; ok is false for a key outside every workspace.
func WorkspaceOf(key string) (workspaceID, kind string, ok bool) {
	rest, found := strings.CutPrefix(key, workspacePrefix)
	if !found {
		return "", "", false
	}
	workspaceID, rest, found = strings.Cut(rest, "#")
	if !found {
		return "", "", false
	}
	kind, _, _ = strings.Cut(rest, "#")
	return workspaceID, kind, true
}

// IsWorkspaceRecord reports whether key is the partition key of a
// workspace's own record, and of which workspace.
func IsWorkspaceRecord(key string) (workspaceID string, ok bool) {
	ws, kind, ok := WorkspaceOf(key)
	return ws, ok && kind == KindWorkspace
}

// WSPK is the partition key of one kind of workspace data.
func WSPK(workspaceID, kind string) string {
	return workspacePrefix + workspaceID + "#" + kind
}

// WSSubPK is the partition key of one kind of data about one thing (an
// email's clicks, an endpoint's deliveries).
func WSSubPK(workspaceID, kind, id string) string { return WSPK(workspaceID, kind+"#"+id) }

// Key builds a primary key value.
func Key(pk, sk string) map[string]ddbtypes.AttributeValue {
	return map[string]ddbtypes.AttributeValue{
		schema.AttrPK: &ddbtypes.AttributeValueMemberS{Value: pk},
		schema.AttrSK: &ddbtypes.AttributeValueMemberS{Value: sk},
	}
}

func WorkspacePK(id string) string { return WSPK(id, KindWorkspace) }
func WorkspaceKey(id string) map[string]ddbtypes.AttributeValue {
	return Key(WorkspacePK(id), KindWorkspace)
}
func KeysPK(ws string) string           { return WSPK(ws, kindKeys) }
func OAuthGrantPK(ws string) string     { return WSPK(ws, kindOAuthGrant) }
func APIKeySecretPK(hash string) string { return apiKeyPrefix + hash }
func DomainPK(ws string) string         { return WSPK(ws, kindDomain) }
func DomainListPK(ws string) string     { return WSPK(ws, kindDomainList) }
func DomainClaimPK(name string) string  { return domainClaimPrefix + name }
func SenderPK(ws string) string         { return WSPK(ws, kindSender) }

// EmailPK is the partition of email id; legacyEmailPK held every email
// before the shards.
func EmailPK(ws, id string) string {
	return WSSubPK(ws, KindEmail, strconv.Itoa(ShardOf(id, emailShards)))
}
func LegacyEmailPK(ws string) string { return WSPK(ws, KindEmail) }

// EmailShardPKs are the partitions a list of emails merges, the legacy
// one last.
func EmailShardPKs(ws string) []string {
	return shardPKs(WSPK(ws, KindEmail), emailShards)
}

func IdempotencyPK(ws, k string) string {
	return WSSubPK(ws, kindIdempotency, strconv.Itoa(ShardOf(k, idempotencyShards)))
}
func EmailContentPK(ws, emailID string) string {
	return WSSubPK(ws, kindEmailContent, emailID)
}
func TemplatePK(ws string) string      { return WSPK(ws, kindTemplate) }
func HeldPK(ws, emailID string) string { return WSSubPK(ws, kindHeld, emailID) }
func HeldByTemplatePK(ws, fingerprint string) string {
	return WSSubPK(ws, kindHeldByTemplate, fingerprint)
}

// ContentRefSK is the sort key, in TemplatePK, of layout fingerprint's
// reference content of day (yyyy-mm-dd).
func ContentRefSK(fingerprint, day string) string { return contentRefPrefix + fingerprint + "#" + day }

// IsContentRefSK reports whether sk, in TemplatePK, is a reference
// content's (not a verdict's, whose sk is a bare fingerprint).
func IsContentRefSK(sk string) bool { return strings.HasPrefix(sk, contentRefPrefix) }

const contentRefPrefix = "REF#"

// SuppressionPK is the partition of address (suppression.Key) on the
// do-not-send list; LegacySuppressionPK held every address before the
// shards.
func SuppressionPK(ws, address string) string {
	return WSSubPK(ws, kindSuppression, strconv.Itoa(ShardOf(address, SuppressionShards)))
}
func LegacySuppressionPK(ws string) string { return WSPK(ws, kindSuppression) }
func SuppressionShardPKs(ws string) []string {
	return shardPKs(WSPK(ws, kindSuppression), SuppressionShards)
}
func SuppressionListPK(ws string) string { return WSPK(ws, kindSuppressionList) }

// UsageShardPKs are the partitions a month's usage is counted over, the
// one before the shards last.
func UsageShardPKs(ws string) []string { return shardPKs(WSPK(ws, kindUsage), UsageShards) }
func ReputationPK(ws string) string    { return WSPK(ws, kindReputation) }
func FeedPK(ws, eventID string) string {
	return WSSubPK(ws, kindEvent, strconv.Itoa(ShardOf(eventID, feedShards)))
}
func FeedShardPKs(ws string) []string { return shardPKs(WSPK(ws, kindEvent), feedShards) }
func DedupePK(ws, dedupeID string) string {
	return WSSubPK(ws, kindDedupe, strconv.Itoa(ShardOf(dedupeID, dedupeShards)))
}
func MetricsShardPKs(ws string) []string {
	return shardPKs(WSPK(ws, kindMetrics), CounterShards)
}
func ClickPK(ws, emailID string) string { return WSSubPK(ws, kindClick, emailID) }
func WebhookPK(ws string) string        { return WSPK(ws, kindWebhook) }

// WebhookAttemptPK is the partition of an endpoint's batch item of
// attempts, by the item's own unique key (batch): a batch holds many
// emails' attempts. LegacyWebhookAttemptPK held one attempt an item, by
// its email, over legacyAttemptShards.
func WebhookAttemptPK(ws, endpointID, batch string) string {
	return WSSubPK(ws, KindWebhookAttempt, endpointID+"#"+strconv.Itoa(ShardOf(batch, attemptShards)))
}
func LegacyWebhookAttemptPK(ws, endpointID, emailID string) string {
	return WSSubPK(ws, KindWebhookAttempt, endpointID+"#"+strconv.Itoa(ShardOf(emailID, legacyAttemptShards)))
}

// WebhookAttemptShardPKs are every partition an endpoint's attempts are
// in: the legacy shards (which include the batch items' first
// attemptShards) and the partition before the shards.
func WebhookAttemptShardPKs(ws, endpointID string) []string {
	return shardPKs(WSSubPK(ws, KindWebhookAttempt, endpointID), legacyAttemptShards)
}

// WebhookAttemptBatchPKs are the partitions of an endpoint's batch items.
func WebhookAttemptBatchPKs(ws, endpointID string) []string {
	return shardPKs(WSSubPK(ws, KindWebhookAttempt, endpointID), attemptShards)[:attemptShards]
}

// shardPKs are the n shards of partition base (base#0 … base#n-1) and
// base itself, where the layout before the shards kept every item.
func shardPKs(base string, n int) []string {
	out := make([]string, 0, n+1)
	for shard := range n {
		out = append(out, base+"#"+strconv.Itoa(shard))
	}
	return append(out, base)
}
func ContactShardPK(ws string, shard int) string {
	return WSSubPK(ws, kindContact, strconv.Itoa(shard))
}
func ContactPK(ws, id string) string { return ContactShardPK(ws, ShardOf(id, ContactShards)) }
func ContactEmailPK(ws, email string) string {
	return WSSubPK(ws, kindContactEmail, strconv.Itoa(ShardOf(email, ContactShards)))
}

// ContactShards is how many partitions hold a workspace's contacts (and
// their email claims): enough that reading 1,000,000 contacts in parallel
// fits API Gateway's 29 s (docs/decisions.md has the arithmetic).
const ContactShards = 16

// How many partitions hold each collection that grows with sending, so
// that none meets DynamoDB's 1,000 write and 3,000 read units a second
// per partition key below 10,000 emails a second per workspace, with
// room (docs/decisions.md has the arithmetic; make bench's hot-key model
// measures it): each shard takes a 1/n share of the units an email costs.
const (
	// 4 WRU an email with tracking (the put, a status update per event)
	// and 3 strongly consistent reads by the status pipeline: 40,000
	// WRU/s at 10,000 emails/s, 625 a shard.
	emailShards = 64
	// 3 feed items an email with tracking, 1 WRU each: 470 a shard.
	feedShards = 64
	// A claim in a transaction (2 WRU) and its answer (1-2): ~4 a send.
	idempotencyShards = 64
	// One item of attempts per dispatcher batch and endpoint, ≈ 1 WRU
	// for a batch of 10: 0.3 an email with tracking, 3,000 WRU/s at
	// 10,000 emails/s (whose 30,000 jobs/s fill every batch), 190 a
	// shard. Batches of one, 3 WRU an email, come only at rates far
	// below.
	attemptShards = 16
	// One attempt an item, by email, before the batch items.
	legacyAttemptShards = 64
	// About one SES event an email the feed does not show (Send).
	dedupeShards = 16
	// The do-not-send list: one strong point read a send (1 RRU), 10,000
	// RRU/s at 10,000 sends/s, 625 a shard.
	SuppressionShards = 16
	// The month's usage: one ADD a status batch (a random shard), and a
	// read of every shard by a send that cannot use its instance's cached
	// sum (contextcache.Store): 1 RRU a shard.
	UsageShards = 16
	// The status function's counters: one update a batch of events per
	// counter item, ~0.4 an email at 10 events a batch.
	CounterShards = 16
	// A campaign's frozen recipients: 1,000,000 are 1,000 chunks of 16 KB
	// (16 WRU each), 16,000 WRU, 16 s at one partition's 1,000 WRU/s: 8
	// take 2 s, which a draft's 29 s can hold beside reading the segment.
	chunkShards = 8
)

// ShardOf spreads ids and emails evenly over n shards. A UUIDv7's
// leading bits are its time, so the whole string is hashed.
func ShardOf(s string, n int) int {
	h := fnv.New32a()
	h.Write([]byte(s))
	return int(h.Sum32() % uint32(n))
}
func SegmentPK(ws string) string        { return WSPK(ws, kindSegment) }
func StoredTemplatePK(ws string) string { return WSPK(ws, kindStoredTemplate) }
func StoredTemplateVersionPK(ws, id string) string {
	return WSSubPK(ws, kindStoredTemplateVersion, id)
}
func CampaignPK(ws string) string { return WSPK(ws, kindCampaign) }
func CampaignRecipientsPK(ws, campaignID string) string {
	return WSSubPK(ws, kindCampaignRecipients, campaignID)
}

// ChunkPK is the partition of chunk n of a campaign's frozen recipients:
// chunks go round chunkShards partitions, so a draft's freeze writes
// them in parallel.
func ChunkPK(ws, campaignID string, n int) string {
	return CampaignRecipientsPK(ws, campaignID) + "#" + strconv.Itoa(n%chunkShards)
}
func OwnersPK(ws string) string        { return WSPK(ws, kindOwner) }
func AuditPK(ws string) string         { return WSPK(ws, kindAudit) }
func OwnerLookupPK(addr string) string { return ownerPrefix + addr }

// TimeKey is a fixed-width UTC time that sorts as text.
func TimeKey(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000000Z") }

// reputationTTL outlives the longest breaker window one would configure.
const reputationTTL = 8 * 24 * time.Hour

// ReputationExpiry is when the counts of the hour at falls in expire.
func ReputationExpiry(at time.Time) int64 {
	return at.UTC().Truncate(time.Hour).Add(reputationTTL).Unix()
}

// Partition key patterns of the tick (infra's permission table): the
// wake-ups of every minute and shard, and its cursor.
var (
	AutomationWakeKeysPattern = AutoDuePrefix + "*"
	AutomationTickKeysPattern = AutoTickPK
)
