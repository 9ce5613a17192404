package queue

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/sesame-mail/sesame/internal/queue/batch"
)

// VisibilityAPI is the part of the SQS API a Visibility uses.
type VisibilityAPI interface {
	ChangeMessageVisibility(ctx context.Context, in *sqs.ChangeMessageVisibilityInput, opts ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityOutput, error)
}

// Visibility postpones received messages of one queue by their visibility
// timeout: a message stays invisible for the delay, then comes back
// (webhook.Postponer).
type Visibility struct {
	SQS      VisibilityAPI
	QueueURL string
}

// Postpone makes the delivery with receipt invisible for delay, to the
// nearest second.
func (v *Visibility) Postpone(ctx context.Context, receipt string, delay time.Duration) error {
	secs := int32((delay + time.Second/2) / time.Second)
	_, err := v.SQS.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{
		QueueUrl: &v.QueueURL, ReceiptHandle: &receipt, VisibilityTimeout: secs,
	})
	if err != nil {
		return fmt.Errorf("change message visibility: %w", err)
	}
	return nil
}

// Backoff brings back the failed messages of queue d, received through
// api at queueURL, after batch.Backoff's growing waits, each at most the
// queue's visibility timeout (which applies when api is nil).
func Backoff(api VisibilityAPI, queueURL string, d Def) batch.Backoff {
	b := batch.Backoff{Ceiling: d.VisibilityTimeout}
	if api != nil {
		b.Later = &Visibility{SQS: api, QueueURL: queueURL}
	}
	return b
}
