// Package grants is the permission table of the deployed functions: what
// each function may call on AWS besides writing its logs, by function
// name. The CDK stack (infra/functions.go) builds each function's IAM role
// from it; the devstack tests check every call the functions make against
// it (Missing), since the local emulators have no IAM.
package grants

import "github.com/sesame-mail/sesame/internal/queue"

// DynamoDB item actions. TransactWriteItems is not an IAM action of its
// own: each item of a transaction is authorized as its action (Put →
// PutItem, Update → UpdateItem, Delete → DeleteItem, ConditionCheck →
// ConditionCheckItem), so a function that writes in transactions is granted
// those.
const (
	GetItem      = "dynamodb:GetItem"
	BatchGetItem = "dynamodb:BatchGetItem"
	Query        = "dynamodb:Query"
	PutItem      = "dynamodb:PutItem"
	UpdateItem   = "dynamodb:UpdateItem"
	DeleteItem   = "dynamodb:DeleteItem"
	// BatchWriteItem is authorized as itself, for its puts and deletes.
	BatchWriteItem = "dynamodb:BatchWriteItem"
)

// ConditionCheckItem authorizes a transaction's ConditionCheck item.
const ConditionCheckItem = "dynamodb:ConditionCheckItem"

// SendSimpleEmail is what SES authorizes a v2 SendEmail with simple
// content as (Profile.SignInMail).
const SendSimpleEmail = "ses:SendEmail"

// APIKeysPattern is the leading keys of the API-key items (Profile.APIKeys).
const APIKeysPattern = "APIKEY#*"

// Profile is an access profile: what a function may do besides writing its
// own logs (and, for a queue consumer, consuming its queue, which the event
// source grants).
type Profile struct {
	// Name identifies the profile in the stack (infra's
	// accessTableProblems: one profile per name).
	Name string
	// Table lists the item actions allowed on the table itself.
	Table []string
	// QueryIndexes allows Query on the table's global secondary indexes.
	QueryIndexes bool
	// SendTo lists the queues the function sends to: sqs:SendMessage on
	// each (SendMessageBatch is authorized as sqs:SendMessage), and each
	// queue's URL in its variable (infra's queueURLVars).
	SendTo []queue.Def
	// OwnQueueURL passes a consumer the URL of the queue it consumes, in
	// that queue's variable, for calls on its own messages.
	// The event source's consume grant covers them: it includes
	// sqs:ChangeMessageVisibility (a webhook retry is scheduled by
	// lengthening its message's visibility).
	OwnQueueURL bool
	// SendEmail allows the send actions (infra's sesSendActions) on the account's SES identities and
	// the stack's configuration sets, and passes the sets' names as
	// SESAME_CONFIG_SET_*.
	SendEmail bool
	// APIKeys allows the per-request key lookup and rate-limit count: an
	// UpdateItem limited to API-key items (APIKeysPattern).
	APIKeys bool
	// Keyed allows item actions on the table limited to the items whose
	// partition key matches (dynamodb:LeadingKeys).
	Keyed []Keyed
	// ReadAccount allows ses:GetAccount (the account's maximum send rate),
	// an action that takes no resource.
	ReadAccount bool
	// SignInMail allows ses:SendEmail (a Simple message: the dashboard's
	// sign-in links) on the account's identities, with no configuration
	// set: the status pipeline has no email to record its events on.
	SignInMail bool
}

// Keyed is one action on the table's items of some partitions only:
// patterns as dynamodb.LeadingKeys (StringLike: * is any run of
// characters) from internal/dynamo's layout.
type Keyed struct {
	Action      string
	LeadingKeys []string
}

// The other services' actions. SendMessageBatch is authorized as
// sqs:SendMessage.
const (
	SendMessage = "sqs:SendMessage"
	GetAccount  = "ses:GetAccount"
)

// GrantsAny reports whether p allows anything besides writing logs.
func (p Profile) GrantsAny() bool {
	return len(p.Table) > 0 || p.QueryIndexes || len(p.SendTo) > 0 || p.SendEmail || p.APIKeys || len(p.Keyed) > 0 || p.ReadAccount
}
