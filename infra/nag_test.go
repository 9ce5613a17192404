package main

import (
	"fmt"
	"slices"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"
)

// nagPacks are the rule packs every synth is checked with (doSynth), by
// the prefix of their rule ids.
var nagPacks = []string{"AwsSolutions", "Serverless"}

// nagErrors lists the unsuppressed errors of the packs on s: rule id and
// resource path.
func nagErrors(s *synthed) []string {
	var out []string
	for _, pack := range nagPacks {
		for _, m := range *s.annotations.FindError(jsii.String("*"), assertions.Match_StringLikeRegexp(jsii.String(pack+"-.*"))) {
			out = append(out, fmt.Sprintf("%s: %v", *m.Id, m.Entry.Data))
		}
	}
	slices.Sort(out)
	return out
}

// AWS's own rule packs find no error in either mode of the stack, nor
// with an address subscribed to the alarms: each finding is fixed or
// suppressed beside its resource with its reason.
func TestNagPacks(t *testing.T) {
	for name, s := range map[string]*synthed{
		"default":     synth(t),
		"localstack":  synthLocalStack(t),
		"alert email": synthAlertEmail(t),
	} {
		for _, e := range nagErrors(s) {
			t.Errorf("%s: %s", name, e)
		}
	}
}
