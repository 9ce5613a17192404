package queue

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// Consumer handles a batch the way an SQS-triggered Lambda does: it reports
// the messages that failed, and an error fails the whole batch.
type Consumer func(ctx context.Context, batch events.SQSEvent) (events.SQSEventResponse, error)

// Receiver is the part of the SQS API a poller uses.
type Receiver interface {
	ReceiveMessage(ctx context.Context, in *sqs.ReceiveMessageInput, opts ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error)
	DeleteMessageBatch(ctx context.Context, in *sqs.DeleteMessageBatchInput, opts ...func(*sqs.Options)) (*sqs.DeleteMessageBatchOutput, error)
}

// Poller feeds one queue to a consumer locally, as the Lambda event source
// mapping does in AWS: batches of up to 10, successful messages deleted,
// failed ones left to reappear after their visibility timeout (and to reach
// the dead-letter queue after its maxReceiveCount).
type Poller struct {
	SQS      Receiver
	QueueURL string
	QueueARN string
	Consume  Consumer
	Logger   *slog.Logger
	// Wait is the long-poll time of one receive; 0 means 1 second.
	Wait time.Duration
}

func (p *Poller) logger() *slog.Logger {
	if p.Logger == nil {
		return slog.Default()
	}
	return p.Logger
}

// Run polls until ctx ends.
func (p *Poller) Run(ctx context.Context) error {
	for ctx.Err() == nil {
		if _, err := p.PollOnce(ctx); err != nil && ctx.Err() == nil {
			p.logger().ErrorContext(ctx, "poll failed", slog.String("queue", p.QueueURL), slog.Any("err", err))
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}
	return nil
}

// PollOnce receives one batch, hands it to the consumer and deletes what
// succeeded. It returns how many messages it received.
func (p *Poller) PollOnce(ctx context.Context) (int, error) {
	wait := p.Wait
	if wait == 0 {
		wait = time.Second
	}
	out, err := p.SQS.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
		QueueUrl:                    &p.QueueURL,
		MaxNumberOfMessages:         10,
		WaitTimeSeconds:             int32(wait / time.Second),
		MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{sqstypes.MessageSystemAttributeNameAll},
		MessageAttributeNames:       []string{"All"},
	})
	if err != nil {
		return 0, err
	}
	if len(out.Messages) == 0 {
		return 0, nil
	}
	ev := events.SQSEvent{Records: make([]events.SQSMessage, 0, len(out.Messages))}
	receipts := map[string]*string{}
	for _, m := range out.Messages {
		ev.Records = append(ev.Records, toRecord(m, p.QueueARN))
		receipts[aws.ToString(m.MessageId)] = m.ReceiptHandle
	}
	resp, err := p.Consume(ctx, ev)
	if err != nil {
		// The whole batch failed: every message comes back after its timeout.
		p.logger().WarnContext(ctx, "batch failed", slog.String("queue", p.QueueURL), slog.Any("err", err))
		return len(out.Messages), nil
	}
	failed := map[string]bool{}
	for _, f := range resp.BatchItemFailures {
		if _, ok := receipts[f.ItemIdentifier]; !ok {
			// As in Lambda, an empty or unknown itemIdentifier fails the
			// whole batch rather than deleting the message that failed.
			p.logger().WarnContext(ctx, "batch failed: unknown item identifier", slog.String("queue", p.QueueURL), slog.String("item", f.ItemIdentifier))
			return len(out.Messages), nil
		}
		failed[f.ItemIdentifier] = true
	}
	for id := range failed {
		delete(receipts, id)
	}
	var entries []sqstypes.DeleteMessageBatchRequestEntry
	for id, receipt := range receipts {
		entries = append(entries, sqstypes.DeleteMessageBatchRequestEntry{Id: aws.String(id), ReceiptHandle: receipt})
	}
	if len(entries) == 0 {
		return len(out.Messages), nil
	}
	del, err := p.SQS.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: &p.QueueURL, Entries: entries})
	if err != nil {
		return len(out.Messages), err
	}
	if len(del.Failed) > 0 {
		return len(out.Messages), errors.New("some processed messages could not be deleted and will be redelivered")
	}
	return len(out.Messages), nil
}

func toRecord(m sqstypes.Message, queueARN string) events.SQSMessage {
	rec := events.SQSMessage{
		MessageId:         aws.ToString(m.MessageId),
		ReceiptHandle:     aws.ToString(m.ReceiptHandle),
		Body:              aws.ToString(m.Body),
		Md5OfBody:         aws.ToString(m.MD5OfBody),
		Attributes:        map[string]string{},
		MessageAttributes: map[string]events.SQSMessageAttribute{},
		EventSource:       "aws:sqs",
		EventSourceARN:    queueARN,
	}
	for k, v := range m.Attributes {
		rec.Attributes[k] = v
	}
	for k, v := range m.MessageAttributes {
		rec.MessageAttributes[k] = events.SQSMessageAttribute{
			DataType: aws.ToString(v.DataType), StringValue: v.StringValue, BinaryValue: v.BinaryValue,
		}
	}
	return rec
}
