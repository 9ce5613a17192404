package main

import (
	"slices"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssecretsmanager"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/jsii-runtime-go"

	"github.com/sesame-mail/sesame/internal/dynamo/schema"
	"github.com/sesame-mail/sesame/internal/queue"
)

// stringKey is a string key attribute, or nil for an unset (empty) name.
func stringKey(name string) *awsdynamodb.Attribute {
	if name == "" {
		return nil
	}
	return &awsdynamodb.Attribute{Name: jsii.String(name), Type: awsdynamodb.AttributeType_STRING}
}

// newTable creates the single table from schema.Table, the same definition
// the local setup uses, so the two cannot drift.
func newTable(stack awscdk.Stack) awsdynamodb.Table {
	s := schema.Table
	table := awsdynamodb.NewTable(stack, jsii.String("Table"), &awsdynamodb.TableProps{
		PartitionKey: stringKey(s.PartitionKey),
		SortKey:      stringKey(s.SortKey),
		BillingMode:  awsdynamodb.BillingMode_PAY_PER_REQUEST,
		PointInTimeRecoverySpecification: &awsdynamodb.PointInTimeRecoverySpecification{
			PointInTimeRecoveryEnabled: jsii.Bool(true),
		},
		TimeToLiveAttribute: optional(s.TTLAttribute),
		// Customer data and event_key history must survive a stack deletion.
		RemovalPolicy: awscdk.RemovalPolicy_RETAIN,
	})
	for _, ix := range s.Indexes {
		table.AddGlobalSecondaryIndex(&awsdynamodb.GlobalSecondaryIndexProps{
			IndexName:      jsii.String(ix.Name),
			PartitionKey:   stringKey(ix.PartitionKey),
			SortKey:        stringKey(ix.SortKey),
			ProjectionType: awsdynamodb.ProjectionType_ALL,
		})
	}
	return table
}

// optional is nil for "", so CDK treats the setting as absent.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return jsii.String(s)
}

// maxRetention is the longest message retention SQS allows (14 days),
// against its default of 4 days.
var maxRetention = 14 * 24 * time.Hour

// fullRetentionQueues keep their messages maxRetention. The webhooks queue
// holds a delivery for its whole retry schedule (about 3.7 days, with
// visibility steps of up to 11h50): a message lives from its first send,
// so under the 4-day default a late retry could expire before it runs.
var fullRetentionQueues = []queue.Def{queue.Webhooks}

// retentionOf is how long queue d keeps a message; nil is SQS's default.
func retentionOf(d queue.Def) awscdk.Duration {
	if slices.Contains(fullRetentionQueues, d) {
		return awscdk.Duration_Seconds(jsii.Number(maxRetention.Seconds()))
	}
	return nil
}

// newQueues creates each queue of queue.All with its dead-letter queue.
// Names are prefixed with the stack name so two deployments can share an
// account and region. Every dead-letter queue keeps its messages
// maxRetention, so they can be inspected and redriven after an incident.
func newQueues(stack awscdk.Stack) map[string]awssqs.Queue {
	queues := make(map[string]awssqs.Queue, len(queue.All))
	for _, d := range queue.All {
		dlq := awssqs.NewQueue(stack, jsii.String("Queue-"+d.DLQName()), &awssqs.QueueProps{
			QueueName:       jsii.String(*stack.StackName() + "-" + d.DLQName()),
			RetentionPeriod: awscdk.Duration_Seconds(jsii.Number(maxRetention.Seconds())),
		})
		suppress(dlq, "Serverless-SQSRedrivePolicy", "A dead-letter queue keeps what failed for 14 days, for inspection and redrive; "+
			"a queue behind it would only move messages out of sight. Its depth alarm (newAlarms) tells the operator.")
		queues[d.Name] = awssqs.NewQueue(stack, jsii.String("Queue-"+d.Name), &awssqs.QueueProps{
			QueueName:         jsii.String(*stack.StackName() + "-" + d.Name),
			VisibilityTimeout: awscdk.Duration_Seconds(jsii.Number(d.VisibilityTimeout.Seconds())),
			RetentionPeriod:   retentionOf(d),
			DeadLetterQueue: &awssqs.DeadLetterQueue{
				Queue:           dlq,
				MaxReceiveCount: jsii.Number(d.MaxReceives),
			},
		})
	}
	return queues
}

// requireTLS makes every queue refuse a request not made over TLS
// (cdk-nag AwsSolutions-SQS4). A queue has one policy: the ses-events
// queue's is the one its SNS subscription writes (newSESEventsTopic),
// which gets the statement; the other queues share one
// AWS::SQS::QueuePolicy, one resource rather than one per queue
// (TestTemplateResourceBudget).
func requireTLS(stack awscdk.Stack, queues map[string]awssqs.Queue) {
	deny := func(arns ...*string) awsiam.PolicyStatement {
		return awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
			Effect:     awsiam.Effect_DENY,
			Principals: &[]awsiam.IPrincipal{awsiam.NewAnyPrincipal()},
			Actions:    jsii.Strings("sqs:*"),
			Resources:  &arns,
			Conditions: &map[string]any{"Bool": map[string]any{"aws:SecureTransport": "false"}},
		})
	}
	sesEvents := queues[queue.SESEvents.Name]
	sesEvents.AddToResourcePolicy(deny(sesEvents.QueueArn()))
	var urls, arns []*string
	for _, d := range queue.All {
		shared := []awssqs.IQueue{queues[d.Name].DeadLetterQueue().Queue}
		if d != queue.SESEvents {
			shared = append(shared, queues[d.Name])
		}
		for _, q := range shared {
			urls = append(urls, q.QueueUrl())
			arns = append(arns, q.QueueArn())
		}
	}
	awssqs.NewCfnQueuePolicy(stack, jsii.String("QueuesTLSOnly"), &awssqs.CfnQueuePolicyProps{
		Queues:         &urls,
		PolicyDocument: awsiam.NewPolicyDocument(&awsiam.PolicyDocumentProps{Statements: &[]awsiam.PolicyStatement{deny(arns...)}}),
	})
}

// newCursorSecret creates the HMAC key that signs pagination cursors.
//
// Functions receive it through the SESAME_CURSOR_SECRET environment variable
// rather than reading Secrets Manager at start-up: init does no network call
// (cold-start budget) and needs no secretsmanager:GetSecretValue grant. The
// template holds only a dynamic reference that CloudFormation resolves at
// deploy time; the cost is that the value is visible to whoever may read the
// function's configuration, and a rotation takes effect on the next deploy.
func newCursorSecret(stack awscdk.Stack) awssecretsmanager.Secret {
	return newHMACSecret(stack, "CursorSecret", "Sesame: HMAC key for pagination cursors")
}

// newHMACSecret is a generated 64-character key, as the functions receive
// their secrets (see newCursorSecret).
func newHMACSecret(stack awscdk.Stack, id, description string) awssecretsmanager.Secret {
	secret := awssecretsmanager.NewSecret(stack, jsii.String(id), &awssecretsmanager.SecretProps{
		Description: jsii.String(description),
		GenerateSecretString: &awssecretsmanager.SecretStringGenerator{
			PasswordLength:     jsii.Number(64),
			ExcludePunctuation: jsii.Bool(true),
		},
	})
	suppress(secret, "AwsSolutions-SMG4", "The functions get the key at deploy time (a dynamic reference, no Secrets Manager read at start), "+
		"and a new key ends what the old one signed (cursors, unsubscribe links in inboxes, dashboard sessions): "+
		"it is rotated deliberately, then redeployed, never on a schedule.")
	return secret
}

// newUnsubscribeSecret creates the HMAC key of unsubscribe links, passed
// as SESAME_UNSUBSCRIBE_SECRET like the cursor secret (see
// newCursorSecret). A secret of its own: rotating it breaks every link
// already sent (mailbox providers expect them to keep working), so it is
// rotated apart from the cursors, deliberately, if ever.
func newUnsubscribeSecret(stack awscdk.Stack) awssecretsmanager.Secret {
	return newHMACSecret(stack, "UnsubscribeSecret", "Sesame: HMAC key for unsubscribe links")
}

// newDashboardSecret creates the HMAC key of the dashboard's session
// cookies and CSRF tokens, passed as SESAME_DASHBOARD_SECRET like the
// cursor secret (see newCursorSecret). Rotating it signs every owner out.
func newDashboardSecret(stack awscdk.Stack) awssecretsmanager.Secret {
	return newHMACSecret(stack, "DashboardSecret", "Sesame: HMAC key for dashboard sessions")
}
