package grants

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/routes"
)

// Call is one AWS request a function made, as IAM authorizes it: a
// transaction or batch is one Call per item.
type Call struct {
	Function string
	// Operation is the SDK operation (TransactWriteItems,
	// SendMessageBatch), Action the IAM action it is authorized as
	// (dynamodb:PutItem, sqs:SendMessage).
	Operation string
	Action    string
	// Index is the index a Query reads, "" for the table.
	Index string
	// LeadingKey is the partition key of the DynamoDB item (or the Query's
	// partition), "" when the request names none.
	LeadingKey string
	// Queue is the name of the SQS queue (queue.Def.Name).
	Queue string
}

// SendRawEmail is what SES authorizes a v2 SendEmail with raw content as
// (infra's sesSendActions).
const SendRawEmail = "ses:SendRawEmail"

// consumeActions are what a consumer's event source grants on the queue
// it consumes.
var consumeActions = []string{"sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:ChangeMessageVisibility",
	"sqs:GetQueueAttributes", "sqs:GetQueueUrl"}

// Missing is the grant c needs that its function's profile lacks, "" when
// the profile allows it (as the stack's IAM policies would).
func Missing(c Call) string {
	p, ok := ByFunction[c.Function]
	if !ok {
		return "an access profile (no ByFunction entry)"
	}
	service, _, _ := strings.Cut(c.Action, ":")
	switch service {
	case "dynamodb":
		return p.missingItem(c)
	case "sqs":
		if c.Action == SendMessage && slices.ContainsFunc(p.SendTo, func(q queue.Def) bool { return q.Name == c.Queue }) {
			return ""
		}
		if slices.Contains(consumeActions, c.Action) && consumes(c.Function, c.Queue) {
			return ""
		}
		return fmt.Sprintf("%s on queue %q", c.Action, c.Queue)
	case "ses":
		if c.Action == SendRawEmail && p.SendEmail || c.Action == SendSimpleEmail && p.SignInMail || c.Action == GetAccount && p.ReadAccount {
			return ""
		}
		return c.Action
	}
	return c.Action
}

// missingItem is Missing for a DynamoDB item action.
func (p Profile) missingItem(c Call) string {
	if c.Index != "" {
		if c.Action == Query && p.QueryIndexes {
			return ""
		}
		return fmt.Sprintf("%s on index %s (QueryIndexes)", c.Action, c.Index)
	}
	if slices.Contains(p.Table, c.Action) {
		return ""
	}
	if p.APIKeys && c.Action == UpdateItem && LeadingKeyLike(c.LeadingKey, APIKeysPattern) {
		return ""
	}
	for _, k := range p.Keyed {
		if k.Action == c.Action && slices.ContainsFunc(k.LeadingKeys, func(pat string) bool { return LeadingKeyLike(c.LeadingKey, pat) }) {
			return ""
		}
	}
	return fmt.Sprintf("%s on leading key %q (Table or a Keyed pattern)", c.Action, c.LeadingKey)
}

// consumes reports whether function is the consumer of queue.
func consumes(function, queue string) bool {
	return slices.ContainsFunc(routes.Consumers, func(c routes.Consumer) bool {
		return c.Function == function && c.Queue.Name == queue
	})
}

// LeadingKeyLike reports whether key matches pattern as IAM's StringLike
// does: * is any run of characters, ? any one character.
func LeadingKeyLike(key, pattern string) bool {
	if key == "" {
		return false
	}
	// Backtracking over the last star: linear for patterns like ours.
	k, p, star, mark := 0, 0, -1, 0
	for k < len(key) {
		switch {
		case p < len(pattern) && (pattern[p] == '?' || pattern[p] == key[k]):
			k++
			p++
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, k
			p++
		case star >= 0:
			mark++
			k, p = mark, star+1
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}
