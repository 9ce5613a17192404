package queue_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/queue/batch"
)

// A consumer sees what the SQS event says of each message, and the ids it
// returns are the batch item failures.
func TestNewConsumer(t *testing.T) {
	first := time.UnixMilli(1_760_000_000_123)
	sent := first.Add(-time.Second)
	ev := events.SQSEvent{Records: []events.SQSMessage{
		{MessageId: "m1", ReceiptHandle: "rh1", Body: "one", Attributes: map[string]string{
			"ApproximateReceiveCount":          "3",
			"ApproximateFirstReceiveTimestamp": "1760000000123",
			"SentTimestamp":                    "1759999999123",
		}},
		{MessageId: "m2", ReceiptHandle: "rh2", Body: "two", Attributes: map[string]string{"ApproximateReceiveCount": "x"}},
	}}
	var got []batch.Message
	consume := queue.NewConsumer(func(_ context.Context, msgs []batch.Message) []string {
		got = msgs
		return []string{"m2"}
	})
	resp, err := consume(t.Context(), ev)
	if err != nil {
		t.Fatal(err)
	}
	want := []batch.Message{
		{ID: "m1", Body: "one", Receipt: "rh1", ReceiveCount: 3, FirstReceived: first, Sent: sent},
		{ID: "m2", Body: "two", Receipt: "rh2"},
	}
	if !slices.EqualFunc(got, want, func(a, b batch.Message) bool {
		return a.ID == b.ID && a.Body == b.Body && a.Receipt == b.Receipt && a.ReceiveCount == b.ReceiveCount &&
			a.FirstReceived.Equal(b.FirstReceived) && a.Sent.Equal(b.Sent)
	}) {
		t.Errorf("messages = %+v, want %+v", got, want)
	}
	if len(resp.BatchItemFailures) != 1 || resp.BatchItemFailures[0].ItemIdentifier != "m2" {
		t.Errorf("failures = %+v, want m2", resp.BatchItemFailures)
	}
}

// The handler's context ends ConsumerMargin before the invocation's, so
// a batch held up by a stalled dependency still reports its failures;
// without an invocation deadline (the local poller) it has none either.
func TestConsumerEndsBeforeTheInvocation(t *testing.T) {
	var got time.Time
	var has bool
	consume := queue.NewConsumer(func(ctx context.Context, _ []batch.Message) []string {
		got, has = ctx.Deadline()
		return nil
	})
	deadline := time.Now().Add(time.Hour)
	ctx, cancel := context.WithDeadline(t.Context(), deadline)
	defer cancel()
	if _, err := consume(ctx, events.SQSEvent{}); err != nil {
		t.Fatal(err)
	}
	if !has || !got.Equal(deadline.Add(-queue.ConsumerMargin)) {
		t.Errorf("handler deadline = %v (%v), want %v", got, has, deadline.Add(-queue.ConsumerMargin))
	}
	if _, err := consume(t.Context(), events.SQSEvent{}); err != nil || has {
		t.Errorf("without a deadline: handler has one (%v), err %v", has, err)
	}
}
