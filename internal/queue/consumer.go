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
// batch item failures.
func NewConsumer(h batch.Handler) Consumer {
	return func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
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
