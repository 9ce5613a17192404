// Package batch is a batch of queue messages as a consumer sees it: plain
// Go, free of the SQS and Lambda types, so the domain packages that
// consume queues (status, sending's review, webhook) need no AWS SDK.
// internal/queue adapts it to SQS and to Lambda's event source mapping.
package batch

import (
	"context"
	"time"
)

// Message is one delivery of a queue message.
type Message struct {
	// ID is the queue's id of the message: for logs and retry reports.
	ID   string
	Body string
	// Receipt identifies this delivery (SQS: the receipt handle), which
	// is what postponing the message's next delivery needs.
	Receipt string
	// ReceiveCount is how many times the message was delivered, this
	// time included: 1 on its first delivery, 0 when unknown.
	ReceiveCount int
	// FirstReceived is when the message was first delivered and Sent when
	// it was enqueued; zero when unknown.
	FirstReceived time.Time
	Sent          time.Time
}

// Handler consumes a batch and returns the IDs of the messages to deliver
// again later; every other message is done and leaves the queue.
type Handler func(ctx context.Context, msgs []Message) (retry []string)
