package main

import (
	"reflect"
	"slices"
	"testing"

	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/queue"
)

func TestConfigurationSets(t *testing.T) {
	s := synth(t)
	sets := s.doc.ofType("AWS::SES::ConfigurationSet")
	if len(sets) != 3 {
		t.Errorf("%d configuration sets, want 3 (one per tracking mode)", len(sets))
	}
	modes := []string{string(email.TrackingFull), string(email.TrackingEssential), string(email.TrackingOff)}
	var got []string
	for _, m := range trackingModes {
		got = append(got, m.mode)
	}
	if !slices.Equal(got, modes) {
		t.Errorf("tracking modes %v, want email.TrackingMode values %v", got, modes)
	}
	ids := configSetIDs(s.doc)
	for _, m := range modes {
		id, ok := ids[m]
		if !ok {
			t.Errorf("no configuration set named %s-%s", testStackName, m)
			continue
		}
		p := sets[id].Properties
		rep, _ := p["ReputationOptions"].(map[string]any)
		snd, _ := p["SendingOptions"].(map[string]any)
		if rep["ReputationMetricsEnabled"] != true || snd["SendingEnabled"] != true {
			t.Errorf("%s: ReputationOptions %v, SendingOptions %v; want reputation metrics and sending enabled", m, rep, snd)
		}
		// No reason at all turns SES's account-level suppression list off
		// for the set: each workspace's own list decides (accountSuppression).
		sup, _ := p["SuppressionOptions"].(map[string]any)
		if reasons, ok := sup["SuppressedReasons"].([]any); !ok || len(reasons) != 0 {
			t.Errorf("%s: SuppressionOptions %v, want SuppressedReasons [] (account-level suppression off)", m, p["SuppressionOptions"])
		}
	}
}

// wantSESEvents is what each tracking mode's set publishes, as the
// template spells it: CDK's EmailSendingEvent SEND, DELIVERY_DELAY, …
// render as CloudFormation's camelCase values (the resource's schema, as
// in cfn-lint, enumerates send, deliveryDelay, …; uppercase was rejected
// until 2025: aws-cloudformation/cloudformation-coverage-roadmap#2130).
var wantSESEvents = map[string][]string{
	"full":      {"send", "delivery", "bounce", "complaint", "reject", "renderingFailure", "deliveryDelay", "open", "click"},
	"essential": {"send", "delivery", "bounce", "complaint", "reject", "renderingFailure", "deliveryDelay", "open", "click"},
	"off":       {"send", "delivery", "bounce", "complaint", "reject", "renderingFailure", "deliveryDelay"},
}

// defaultBusArn is the account's default EventBridge bus, rendered.
const defaultBusArn = "arn:${AWS::Partition}:events:${AWS::Region}:${AWS::AccountId}:event-bus/default"

func TestSESEventDestinations(t *testing.T) {
	s := synth(t)
	sets := configSetIDs(s.doc)
	dests := s.doc.ofType("AWS::SES::ConfigurationSetEventDestination")
	if len(dests) != len(wantSESEvents) {
		t.Errorf("%d event destinations, want one per configuration set (%d)", len(dests), len(wantSESEvents))
	}
	for mode, events := range wantSESEvents {
		found := 0
		for id, d := range dests {
			p := d.Properties
			if refTarget(p["ConfigurationSetName"]) != sets[mode] {
				continue
			}
			found++
			ed, _ := p["EventDestination"].(map[string]any)
			eb, _ := ed["EventBridgeDestination"].(map[string]any)
			if got := render(eb["EventBusArn"]); got != defaultBusArn {
				t.Errorf("%s (%s): EventBusArn = %s, want %s", mode, id, got, defaultBusArn)
			}
			for _, other := range []string{"SnsDestination", "CloudWatchDestination", "KinesisFirehoseDestination"} {
				if _, ok := ed[other]; ok {
					t.Errorf("%s: unexpected %s", mode, other)
				}
			}
			if ed["Enabled"] != true {
				t.Errorf("%s: Enabled = %v, want true", mode, ed["Enabled"])
			}
			var got []string
			for _, e := range ed["MatchingEventTypes"].([]any) {
				got = append(got, e.(string))
			}
			slices.Sort(got)
			want := slices.Sorted(slices.Values(events))
			if !slices.Equal(got, want) {
				t.Errorf("%s: MatchingEventTypes = %v, want %v", mode, got, want)
			}
		}
		if found != 1 {
			t.Errorf("%s: %d event destinations, want 1", mode, found)
		}
	}
	// Tracking off: nothing of SES's open and click tracking on its set.
	off := s.doc.Resources[sets["off"]].Properties
	if _, ok := off["TrackingOptions"]; ok {
		t.Errorf("off set has TrackingOptions %v, want none", off["TrackingOptions"])
	}
}

func TestSESEventsRule(t *testing.T) {
	s := synth(t)
	queues := queueIDs(s.doc)
	sesEvents := queues[queue.SESEvents.Name]
	sets := configSetIDs(s.doc)
	ruleID := sesEventsRuleID(t, s.doc)
	p := s.doc.Resources[ruleID].Properties
	if _, ok := p["EventBusName"]; ok {
		t.Errorf("rule on bus %v, want the default bus", p["EventBusName"])
	}
	if p["State"] != "ENABLED" {
		t.Errorf("rule State = %v, want ENABLED", p["State"])
	}
	pat, _ := p["EventPattern"].(map[string]any)
	if !reflect.DeepEqual(pat["source"], []any{"aws.ses"}) {
		t.Errorf("pattern source = %v, want [aws.ses]", pat["source"])
	}
	detail, _ := pat["detail"].(map[string]any)
	mail, _ := detail["mail"].(map[string]any)
	tags, _ := mail["tags"].(map[string]any)
	var got []string
	for _, n := range tags["ses:configuration-set"].([]any) {
		got = append(got, refTarget(n))
	}
	var want []string
	for _, m := range trackingModes {
		want = append(want, sets[m.mode])
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("pattern detail.mail.tags.ses:configuration-set = %v, want Refs of %v", got, want)
	}

	targets, _ := p["Targets"].([]any)
	if len(targets) != 1 {
		t.Fatalf("rule targets %v, want one", targets)
	}
	target := targets[0].(map[string]any)
	if got := getAttTarget(target["Arn"], "Arn"); got != sesEvents {
		t.Errorf("rule target %v, want the %s queue", target["Arn"], queue.SESEvents.Name)
	}
	for _, k := range []string{"Input", "InputPath", "InputTransformer"} {
		if _, ok := target[k]; ok {
			// status.Parse expects the whole EventBridge event.
			t.Errorf("rule target has %s; want the event as is", k)
		}
	}

	// The queue policy lets EventBridge send, for this rule only.
	found := false
	for id, qp := range s.doc.ofType("AWS::SQS::QueuePolicy") {
		var onQueue bool
		for _, q := range qp.Properties["Queues"].([]any) {
			onQueue = onQueue || refTarget(q) == sesEvents
		}
		if !onQueue {
			continue
		}
		doc, _ := qp.Properties["PolicyDocument"].(map[string]any)
		for _, st := range doc["Statement"].([]any) {
			st := st.(map[string]any)
			principal, _ := st["Principal"].(map[string]any)
			if st["Effect"] != "Allow" || principal["Service"] != "events.amazonaws.com" ||
				!slices.Contains(actions(st), "sqs:SendMessage") {
				continue
			}
			found = true
			if got := resources(st); !slices.Equal(got, []string{"${" + sesEvents + ".Arn}"}) {
				t.Errorf("%s: resources %v, want the ses-events queue", id, got)
			}
			cond, _ := st["Condition"].(map[string]any)
			arnEq, _ := cond["ArnEquals"].(map[string]any)
			if got := getAttTarget(arnEq["aws:SourceArn"], "Arn"); got != ruleID {
				t.Errorf("%s: condition %v, want aws:SourceArn = the rule", id, st["Condition"])
			}
		}
	}
	if !found {
		t.Errorf("no queue policy on %s lets events.amazonaws.com send", queue.SESEvents.Name)
	}
}
