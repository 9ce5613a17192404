// Package queues lists Sesame's SQS queues: names, visibility and
// redrive. It imports no SDK, so internal/routes, and every function that
// reads routes, need not link the SQS client to name a queue.
package queues

import "time"

// Def describes one work queue. Each has a dead-letter queue named Name+"-dlq"
// that receives a message after MaxReceives failed deliveries.
type Def struct {
	Name              string
	VisibilityTimeout time.Duration
	MaxReceives       int
}

// DLQName is the name of the dead-letter queue of d.
func (d Def) DLQName() string { return d.Name + "-dlq" }

// The queues of Sesame, used by the CDK stack and the local setup alike.
var (
	SESEvents = Def{Name: "ses-events", VisibilityTimeout: 60 * time.Second, MaxReceives: 5}
	Webhooks  = Def{Name: "webhooks", VisibilityTimeout: 60 * time.Second, MaxReceives: 30}
	Review    = Def{Name: "review", VisibilityTimeout: 60 * time.Second, MaxReceives: 5}
	// Sends carries campaign chunks, one message per chunk of up to 1,000
	// recipients: at a 14/s account rate a chunk takes over a minute, so
	// its sender runs up to 5 minutes (half the visibility) and carries on
	// in a new message when time runs short. A chunk that met a fault
	// comes back after batch.Backoff's waits (2 s doubling up to the
	// visibility timeout): 20 receives ride out an outage of about an
	// hour or more before the dead-letter queue, as 10 whole timeouts did.
	Sends = Def{Name: "sends", VisibilityTimeout: 10 * time.Minute, MaxReceives: 20}
	// Automations carries automation runs' wake-ups (automation.WakeMessage):
	// a run executes what is due, at most a send, a tag and a wait at a
	// time, well inside a minute; faults back off as the sends' do.
	Automations = Def{Name: "automations", VisibilityTimeout: 2 * time.Minute, MaxReceives: 20}
)

// All lists every queue. Each has a consumer (internal/routes); the bulk
// and automation queues of DESIGN.md come with the features that use them.
var All = []Def{SESEvents, Webhooks, Review, Sends, Automations}
