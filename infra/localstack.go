package main

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/jsii-runtime-go"
)

// LocalStack mode (deployOptions.localStack): what the stack does
// differently in LocalStack's free image.

// defaultSESv2Endpoint is the aws-ses-v2-local container of
// localstack/docker-compose.yml (service sesv2Service, port sesv2Port) as
// the function containers reach it: LocalStack starts them on the compose
// network (LAMBDA_DOCKER_NETWORK), where the service name resolves.
const (
	sesv2Service         = "ses-v2-local"
	sesv2Port            = "8005"
	defaultSESv2Endpoint = "http://" + sesv2Service + ":" + sesv2Port
)

// sesv2EndpointVar is the AWS SDK's service-specific endpoint variable for
// SES v2. It wins over AWS_ENDPOINT_URL, which LocalStack sets in every
// function container to reach itself, so DynamoDB, SQS and the rest still
// go to LocalStack.
const sesv2EndpointVar = "AWS_ENDPOINT_URL_SESV2"

// sesConfiguration creates the topic SES events go through to the
// ses-events queue and the stack's SES configuration sets publishing to
// it. In LocalStack mode there are no sets (the community image has no
// provider for them): the topic and its subscription are there, and
// localstack/smoke.sh publishes an SES event to the topic as a set would.
func sesConfiguration(stack awscdk.Stack, opts deployOptions, sesEvents awssqs.IQueue) []configSet {
	topic, subscription := newSESEventsTopic(stack, sesEvents)
	awscdk.NewCfnOutput(stack, jsii.String("SesEventsTopicArn"), &awscdk.CfnOutputProps{
		Value:       topic.TopicArn(),
		Description: jsii.String("The SNS topic the configuration sets publish SES events to"),
	})
	if opts.localStack {
		return nil
	}
	return newConfigSets(stack, topic, subscription)
}
