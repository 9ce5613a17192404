package main

import (
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"
)

// suppress records on c, and the resources under it, why cdk-nag's rule
// does not apply there. appliesTo narrows an IAM rule to the findings
// named (e.g. "Resource::*"); a finding it does not name still fails.
// The infra tests run the AwsSolutions and Serverless packs on the stack
// (TestNagPacks); `cdk synth` does not.
func suppress(c constructs.IConstruct, rule, reason string, appliesTo ...any) {
	s := &cdknag.NagPackSuppression{Id: jsii.String(rule), Reason: jsii.String(reason)}
	if len(appliesTo) > 0 {
		s.AppliesTo = &appliesTo
	}
	cdknag.NagSuppressions_AddResourceSuppressions(c, &[]*cdknag.NagPackSuppression{s}, jsii.Bool(true))
}

// appliesToPattern is an appliesTo entry matching findings by an
// ECMA-262 regular expression, for findings that name a logical id.
func appliesToPattern(re string) any {
	return &cdknag.RegexAppliesTo{Regex: jsii.String(re)}
}
