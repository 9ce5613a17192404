package main

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsses"
	"github.com/aws/jsii-runtime-go"
)

// sesSendActions are the IAM actions of a send. Sesame calls SES v2
// SendEmail with Content.Raw, and SES authorizes that request as
// ses:SendRawEmail on the From identity (and the configuration set): a
// denied v2 SendEmail answers "not authorized to perform
// `ses:SendRawEmail'", and ses:SendEmail alone does not allow it (django-
// anymail's SES docs, "IAM permissions", and its issue #384).
var sesSendActions = []string{"ses:SendRawEmail"}

// trackingModes are the values of email.TrackingMode: one configuration set
// each, named to the functions by envVar.
var trackingModes = []struct{ mode, envVar string }{
	{"full", "SESAME_CONFIG_SET_FULL"},
	{"essential", "SESAME_CONFIG_SET_ESSENTIAL"},
	{"off", "SESAME_CONFIG_SET_OFF"},
}

// configSet is the configuration set of one tracking mode.
type configSet struct {
	mode   string
	envVar string
	set    awsses.ConfigurationSet
	arn    *string
}

// newConfigSets creates one SES configuration set per tracking mode, named
// <stack>-<mode>. Opens and clicks are not a setting of a set: they are
// tracked by publishing OPEN and CLICK events to an event destination.
// Until SES event publishing is added (with its SNS/SQS destinations) the
// three sets differ only by name.
func newConfigSets(stack awscdk.Stack) []configSet {
	out := make([]configSet, 0, len(trackingModes))
	for _, t := range trackingModes {
		set := awsses.NewConfigurationSet(stack, jsii.String("ConfigSet-"+t.mode), &awsses.ConfigurationSetProps{
			ConfigurationSetName: jsii.String(*stack.StackName() + "-" + t.mode),
			ReputationMetrics:    jsii.Bool(true),
			SendingEnabled:       jsii.Bool(true),
		})
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
