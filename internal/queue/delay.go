package queue

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// MaxDelay is the longest delay SQS holds a message back (DelaySeconds).
const MaxDelay = 15 * time.Minute

// EnqueueAfter sends body as JSON, delivered once delay has passed
// (rounded up to the second, at most MaxDelay).
func (p *Publisher) EnqueueAfter(ctx context.Context, body any, delay time.Duration) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	s := string(b)
	secs := int32(min(MaxDelay, max(0, delay+time.Second-1)) / time.Second)
	if _, err := p.SQS.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &p.QueueURL, MessageBody: &s, DelaySeconds: secs}); err != nil {
		return fmt.Errorf("enqueue: %w", err)
	}
	return nil
}
