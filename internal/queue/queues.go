// Package queue adapts the SQS API: sending messages, changing a message's
// visibility, the Lambda event of a consumer and, locally, polling a queue
// into a consumer the way a Lambda event source mapping does.
package queue

import "github.com/sesame-mail/sesame/internal/queue/queues"

// The queue definitions live in internal/queue/queues, which links no SDK;
// these names let code that uses the SQS adapters import one package.
type Def = queues.Def

var (
	SESEvents = queues.SESEvents
	Webhooks  = queues.Webhooks
	Review    = queues.Review
	Sends     = queues.Sends
	// Automations carries automation runs' wake-ups.
	Automations = queues.Automations
	All         = queues.All
)
