package main

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsses"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssnssubscriptions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/jsii-runtime-go"

	"github.com/sesame-mail/sesame/internal/grants"
)

// sesSendActions are the IAM actions of a send. Sesame calls SES v2
// SendEmail with Content.Raw, and SES authorizes that request as
// ses:SendRawEmail on the From identity (and the configuration set): a
// denied v2 SendEmail answers "not authorized to perform
// `ses:SendRawEmail'", and ses:SendEmail alone does not allow it (django-
// anymail's SES docs, "IAM permissions", and its issue #384).
var sesSendActions = []string{grants.SendRawEmail}

// deliveryEvents are the SES events every configuration set publishes: the
// life of a message in SES to its delivery, bounce, complaint or
// rejection. Not SEND (SES accepted the request): it fed only the monthly
// allowance, which counts the email when SES finishes with it instead
// (status.Plan), and each one published cost an SNS publish, a queue
// SendMessage and a dedupe write.
var deliveryEvents = []awsses.EmailSendingEvent{
	awsses.EmailSendingEvent_DELIVERY,
	awsses.EmailSendingEvent_BOUNCE,
	awsses.EmailSendingEvent_COMPLAINT,
	awsses.EmailSendingEvent_REJECT,
	awsses.EmailSendingEvent_RENDERING_FAILURE,
	awsses.EmailSendingEvent_DELIVERY_DELAY,
}

// engagementEvents are published only by the sets that track opens and
// clicks. Publishing OPEN and CLICK to a destination is what turns SES's
// open pixel and link rewriting on for a set, so a set without them sends
// the message untouched.
var engagementEvents = []awsses.EmailSendingEvent{
	awsses.EmailSendingEvent_OPEN,
	awsses.EmailSendingEvent_CLICK,
}

// trackingModes are the values of email.TrackingMode: one configuration set
// each, named to the functions by envVar. full and essential both track
// opens and clicks (essential only reports opens at day granularity, which
// the status function does); off tracks neither.
var trackingModes = []struct {
	mode, envVar string
	// engagement publishes engagementEvents besides deliveryEvents.
	engagement bool
}{
	{"full", "SESAME_CONFIG_SET_FULL", true},
	{"essential", "SESAME_CONFIG_SET_ESSENTIAL", true},
	{"off", "SESAME_CONFIG_SET_OFF", false},
}

// configSet is the configuration set of one tracking mode.
type configSet struct {
	mode   string
	envVar string
	set    awsses.ConfigurationSet
	arn    *string
}

// accountSuppression: every configuration set turns SES's account-level
// suppression list off (SuppressionOptions with no reasons), so the only
// list that stops Sesame's email is each workspace's own do-not-send list,
// which the status pipeline fills with hard bounces and complaints as SES
// would. SES's list belongs to the whole AWS account: left on, an address
// one workspace bounced would be refused for every workspace, and an
// address a workspace removes from its list (DELETE /suppressions) would
// still be dropped by SES as OnAccountSuppressionList and come straight
// back. Removing an address therefore never calls SES, and no function is
// granted ses:DeleteSuppressedDestination, which cannot be scoped below
// the whole account.
//
// newConfigSets creates one SES configuration set per tracking mode, named
// <stack>-<mode>, each publishing its events to topic (see
// newSESEventsTopic).
//
// No set has TrackingOptions (a custom redirect domain): the full and
// essential sets track on SES's own tracking domain, and the off set must
// not track at all.
//
// Each event destination waits for the queue's subscription: SES publishes
// from the moment a destination exists, and SNS drops what it gets while
// nothing is subscribed.
func newConfigSets(stack awscdk.Stack, topic awssns.ITopic, subscription awssns.Subscription) []configSet {
	out := make([]configSet, 0, len(trackingModes))
	for _, t := range trackingModes {
		set := awsses.NewConfigurationSet(stack, jsii.String("ConfigSet-"+t.mode), &awsses.ConfigurationSetProps{
			ConfigurationSetName: jsii.String(configSetName(stack, t.mode)),
			ReputationMetrics:    jsii.Bool(true),
			SendingEnabled:       jsii.Bool(true),
			// Each workspace's own do-not-send list decides (see
			// accountSuppression below).
			DisableSuppressionList: jsii.Bool(true),
		})
		events := append([]awsses.EmailSendingEvent{}, deliveryEvents...)
		if t.engagement {
			events = append(events, engagementEvents...)
		}
		dest := set.AddEventDestination(jsii.String("ToSNS"), &awsses.ConfigurationSetEventDestinationOptions{
			Destination: awsses.EventDestination_SnsTopic(topic),
			Events:      &events,
		})
		dest.Node().AddDependency(subscription)
		out = append(out, configSet{
			mode:   t.mode,
			envVar: t.envVar,
			set:    set,
			arn: stack.FormatArn(&awscdk.ArnComponents{
				Service:      jsii.String("ses"),
				Resource:     jsii.String("configuration-set"),
				ResourceName: set.ConfigurationSetName(),
			}),
		})
	}
	return out
}

// configSetName is the name of the configuration set of a tracking mode.
func configSetName(stack awscdk.Stack, mode string) string {
	return *stack.StackName() + "-" + mode
}

// newSESEventsTopic creates the SNS topic the configuration sets publish
// their events to, with the ses-events queue subscribed by raw message
// delivery: the queue receives the SES event record itself, which
// status.Parse reads as it is.
//
// SES → SNS → SQS rather than SES → EventBridge: SES's per-email events on
// EventBridge are opt-in data events, $1.00 per million, while SNS costs
// $0.50 per million publishes (per 64 KB; an SES event is a few KB) and
// delivers to SQS for free. The SQS requests are billed either way.
//
// No KMS key: the table and queues are encrypted by keys AWS owns, at no
// charge, which SNS does not offer; a topic encrypted for SES needs a
// customer managed key ($1 a month, and SES must be let use it). The
// topic only refuses requests without TLS (EnforceSSL).
//
// Least privilege: each configuration set's event destination adds a
// topic policy statement (aws-cdk's ConfigurationSetEventDestination)
// letting ses.amazonaws.com publish only for that set of this account
// (aws:SourceAccount and aws:SourceArn); the subscription adds a queue
// policy letting sns.amazonaws.com send to the queue only from this
// topic. Nothing else may publish or send.
func newSESEventsTopic(stack awscdk.Stack, sesEvents awssqs.IQueue) (awssns.Topic, awssns.Subscription) {
	topic := awssns.NewTopic(stack, jsii.String("SesEventsTopic"), &awssns.TopicProps{
		TopicName:   jsii.String(*stack.StackName() + "-ses-events"),
		DisplayName: jsii.String("Sesame: SES events of the stack's configuration sets"),
		EnforceSSL:  jsii.Bool(true),
	})
	subscription := topic.AddSubscription(awssnssubscriptions.NewSqsSubscription(sesEvents, &awssnssubscriptions.SqsSubscriptionProps{
		RawMessageDelivery: jsii.Bool(true),
	}))
	suppress(subscription, "Serverless-SNSRedrivePolicy", "SNS retries a delivery to SQS for days (AWS-managed endpoint policy); "+
		"it fails for good only if the ses-events queue or its policy, both this stack's, refuse it. "+
		"What the queue's consumer cannot apply goes to ses-events-dlq, which has a depth alarm.")
	return topic, subscription
}

// sesIdentitiesArn is every SES identity of the stack's account and region.
//
// The grant is "the stack's identities", but domains are added at run time
// by the operator console (cmd/sesame), not by this stack, so their names
// are unknown at synth. identity/* in this account and region is the
// narrowest ARN that covers them: never another account's or region's
// identities, never "*". Which domain a workspace may send from is enforced
// by the application (verified domains per workspace).
func sesIdentitiesArn(stack awscdk.Stack) *string {
	return stack.FormatArn(&awscdk.ArnComponents{
		Service:      jsii.String("ses"),
		Resource:     jsii.String("identity"),
		ResourceName: jsii.String("*"),
	})
}
