package queue

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// SendAPI is the part of the SQS API a Publisher uses.
type SendAPI interface {
	SendMessage(ctx context.Context, in *sqs.SendMessageInput, opts ...func(*sqs.Options)) (*sqs.SendMessageOutput, error)
}

// Publisher puts JSON messages on one queue.
type Publisher struct {
	SQS      SendAPI
	QueueURL string
}

// Enqueue sends body as JSON.
func (p *Publisher) Enqueue(ctx context.Context, body any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	s := string(b)
	if _, err := p.SQS.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &p.QueueURL, MessageBody: &s}); err != nil {
		return fmt.Errorf("enqueue: %w", err)
	}
	return nil
}
