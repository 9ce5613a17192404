package queue

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// Admin is the part of the SQS API that creates queues.
type Admin interface {
	CreateQueue(ctx context.Context, in *sqs.CreateQueueInput, opts ...func(*sqs.Options)) (*sqs.CreateQueueOutput, error)
	GetQueueAttributes(ctx context.Context, in *sqs.GetQueueAttributesInput, opts ...func(*sqs.Options)) (*sqs.GetQueueAttributesOutput, error)
}

// Ensure creates each queue and its dead-letter queue unless they exist
// (CreateQueue with the same attributes is idempotent) and returns the queue
// URLs by name. prefix is prepended to every name (e.g. a test's own set).
func Ensure(ctx context.Context, c Admin, prefix string, defs []Def) (map[string]string, error) {
	urls := map[string]string{}
	for _, d := range defs {
		// A message keeps its first enqueue time in the DLQ, so the DLQ keeps
		// messages for the SQS maximum of 14 days.
		dlq, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{
			QueueName:  aws.String(prefix + d.DLQName()),
			Attributes: map[string]string{string(sqstypes.QueueAttributeNameMessageRetentionPeriod): "1209600"},
		})
		if err != nil {
			return nil, fmt.Errorf("create queue %s: %w", d.DLQName(), err)
		}
		attrs, err := c.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{
			QueueUrl: dlq.QueueUrl, AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameQueueArn},
		})
		if err != nil {
			return nil, fmt.Errorf("queue arn of %s: %w", d.DLQName(), err)
		}
		redrive, err := json.Marshal(map[string]string{
			"deadLetterTargetArn": attrs.Attributes[string(sqstypes.QueueAttributeNameQueueArn)],
			"maxReceiveCount":     strconv.Itoa(d.MaxReceives),
		})
		if err != nil {
			return nil, err
		}
		q, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{
			QueueName: aws.String(prefix + d.Name),
			Attributes: map[string]string{
				string(sqstypes.QueueAttributeNameVisibilityTimeout): strconv.Itoa(int(d.VisibilityTimeout.Seconds())),
				string(sqstypes.QueueAttributeNameRedrivePolicy):     string(redrive),
			},
		})
		if err != nil {
			return nil, fmt.Errorf("create queue %s: %w", d.Name, err)
		}
		urls[d.Name] = aws.ToString(q.QueueUrl)
		urls[d.DLQName()] = aws.ToString(dlq.QueueUrl)
	}
	return urls, nil
}
