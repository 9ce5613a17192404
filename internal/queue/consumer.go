package queue

import (
	"context"
	"strconv"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/sesame-mail/sesame/internal/queue/batch"
)

// NewConsumer adapts a batch handler to the SQS event of a Lambda event
// source mapping (and of Poller): the messages it returns are reported as
// batch item failures. The handler's context ends ConsumerMargin before
// the invocation's.
func NewConsumer(h batch.Handler) Consumer {
	return func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		ctx, cancel := withMargin(ctx)
		defer cancel()
		msgs := make([]batch.Message, len(ev.Records))
		for i, rec := range ev.Records {
			msgs[i] = message(rec)
		}
		var resp events.SQSEventResponse
		for _, id := range h(ctx, msgs) {
			resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: id})
		}
		return resp, nil
	}
}

// ConsumerMargin is kept free before an invocation's deadline: a batch
// slowed by a stalled dependency still returns which of its messages to
// deliver again, instead of being ended by Lambda (which would deliver
// every one of them again, the done ones too).
const ConsumerMargin = 2 * time.Second

// withMargin ends ctx ConsumerMargin before its deadline, if it has one.
func withMargin(ctx context.Context) (context.Context, context.CancelFunc) {
	deadline, ok := ctx.Deadline()
	if !ok {
		return ctx, func() {}
	}
	return context.WithDeadline(ctx, deadline.Add(-ConsumerMargin))
}

// message reads what a consumer needs of an SQS record; an attribute SQS
// did not send stays zero.
func message(rec events.SQSMessage) batch.Message {
	m := batch.Message{ID: rec.MessageId, Body: rec.Body, Receipt: rec.ReceiptHandle}
	if n, err := strconv.Atoi(rec.Attributes["ApproximateReceiveCount"]); err == nil && n > 0 {
		m.ReceiveCount = n
	}
	m.FirstReceived = unixMilli(rec.Attributes["ApproximateFirstReceiveTimestamp"])
	m.Sent = unixMilli(rec.Attributes["SentTimestamp"])
	return m
}

func unixMilli(attr string) time.Time {
	if ms, err := strconv.ParseInt(attr, 10, 64); err == nil && ms > 0 {
		return time.UnixMilli(ms)
	}
	return time.Time{}
}
