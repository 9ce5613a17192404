package main

import (
	"fmt"
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
// template spells it (no send: the allowance counts an email when SES
// finishes with it): CDK's EmailSendingEvent DELIVERY_DELAY, …
// render as CloudFormation's camelCase values (the resource's schema, as
// in cfn-lint, enumerates send, deliveryDelay, …; uppercase was rejected
// until 2025: aws-cloudformation/cloudformation-coverage-roadmap#2130).
var wantSESEvents = map[string][]string{
	"full":      {"delivery", "bounce", "complaint", "reject", "renderingFailure", "deliveryDelay", "open", "click"},
	"essential": {"delivery", "bounce", "complaint", "reject", "renderingFailure", "deliveryDelay", "open", "click"},
	"off":       {"delivery", "bounce", "complaint", "reject", "renderingFailure", "deliveryDelay"},
}

func TestSESEventDestinations(t *testing.T) {
	s := synth(t)
	sets := configSetIDs(s.doc)
	topic := sesEventsTopicID(t, s.doc)
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
			sns, _ := ed["SnsDestination"].(map[string]any)
			if got := refTarget(sns["TopicARN"]); got != topic {
				t.Errorf("%s (%s): SnsDestination %v, want the SES events topic %s", mode, id, ed["SnsDestination"], topic)
			}
			for _, other := range []string{"EventBridgeDestination", "CloudWatchDestination", "KinesisFirehoseDestination"} {
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

// The SES events reach the ses-events queue through the topic, by raw
// message delivery (status.Parse reads the bare SES event), and no
// EventBridge rule matches them any more.
func TestSESEventsTopic(t *testing.T) {
	s := synth(t)
	topic := sesEventsTopicID(t, s.doc)
	sesEvents := queueIDs(s.doc)[queue.SESEvents.Name]
	if got := s.doc.Resources[topic].Properties["TopicName"]; got != testStackName+"-ses-events" {
		t.Errorf("TopicName = %v, want %s-ses-events", got, testStackName)
	}
	subs := s.doc.ofType("AWS::SNS::Subscription")
	if len(subs) != 1 {
		t.Fatalf("%d SNS subscriptions, want 1", len(subs))
	}
	for id, sub := range subs {
		p := sub.Properties
		if refTarget(p["TopicArn"]) != topic || p["Protocol"] != "sqs" || getAttTarget(p["Endpoint"], "Arn") != sesEvents {
			t.Errorf("%s: %v, want the topic to the %s queue over sqs", id, p, queue.SESEvents.Name)
		}
		if p["RawMessageDelivery"] != true {
			t.Errorf("%s: RawMessageDelivery = %v, want true (the queue gets the bare SES event)", id, p["RawMessageDelivery"])
		}
		if _, ok := p["FilterPolicy"]; ok {
			t.Errorf("%s: FilterPolicy %v, want every event", id, p["FilterPolicy"])
		}
	}
	for id, r := range s.doc.ofType("AWS::Events::Rule") {
		if _, ok := r.Properties["EventPattern"]; ok {
			t.Errorf("%s: an EventBridge rule with an event pattern, want only the schedules", id)
		}
	}
}

// Only SES, for this account's configuration sets of the stack, may
// publish to the topic, and only over TLS; only the topic may send to the
// ses-events queue.
func TestSESEventsPolicies(t *testing.T) {
	s := synth(t)
	topic := sesEventsTopicID(t, s.doc)
	sesEvents := queueIDs(s.doc)[queue.SESEvents.Name]
	sets := configSetIDs(s.doc)
	var wantSources, gotSources []string
	for _, m := range trackingModes {
		wantSources = append(wantSources, sesArnPrefix+"configuration-set/${"+sets[m.mode]+"}")
	}
	policies := onTopic(s.doc, "AWS::SNS::TopicPolicy", topic)
	if len(policies) != 1 {
		t.Fatalf("%d policies of the SES events topic, want 1", len(policies))
	}
	denyPlain := false
	for id, tp := range policies {
		if ts, _ := tp.Properties["Topics"].([]any); len(ts) != 1 {
			t.Errorf("%s: on %v, want the SES events topic alone", id, tp.Properties["Topics"])
		}
		doc, _ := tp.Properties["PolicyDocument"].(map[string]any)
		for _, st := range doc["Statement"].([]any) {
			st := st.(map[string]any)
			if !slices.Equal(actions(st), []string{"sns:Publish"}) || !slices.Equal(resources(st), []string{"${" + topic + "}"}) {
				t.Errorf("%s: statement %v, want sns:Publish on the topic only", id, st)
			}
			cond, _ := st["Condition"].(map[string]any)
			if st["Effect"] == "Deny" {
				tls, _ := cond["Bool"].(map[string]any)
				denyPlain = denyPlain || (st["Principal"] == "*" && tls["aws:SecureTransport"] == "false")
				continue
			}
			principal, _ := st["Principal"].(map[string]any)
			eq, _ := cond["StringEquals"].(map[string]any)
			if principal["Service"] != "ses.amazonaws.com" || render(eq["AWS:SourceAccount"]) != "${AWS::AccountId}" {
				t.Errorf("%s: allows %v on %v, want ses.amazonaws.com of this account", id, st["Principal"], st["Condition"])
				continue
			}
			gotSources = append(gotSources, render(eq["AWS:SourceArn"]))
		}
	}
	if !denyPlain {
		t.Error("the topic policy does not deny publishing without TLS")
	}
	slices.Sort(gotSources)
	slices.Sort(wantSources)
	if !slices.Equal(gotSources, wantSources) {
		t.Errorf("SES may publish for %v, want the stack's sets %v", gotSources, wantSources)
	}

	// SES publishes once a destination exists: each waits for the topic
	// policy and the queue's subscription (SNS drops events nobody is
	// subscribed to).
	subs := onTopic(s.doc, "AWS::SNS::Subscription", topic)
	if len(subs) != 1 {
		t.Fatalf("%d subscriptions to the SES events topic, want 1", len(subs))
	}
	for id, dest := range s.doc.ofType("AWS::SES::ConfigurationSetEventDestination") {
		for sub := range subs {
			if !slices.Contains(dest.DependsOn, sub) {
				t.Errorf("%s does not wait for the subscription %s (depends on %v)", id, sub, dest.DependsOn)
			}
		}
		for p := range policies {
			if !slices.Contains(dest.DependsOn, p) {
				t.Errorf("%s does not wait for the topic policy %s (depends on %v)", id, p, dest.DependsOn)
			}
		}
	}

	var senders []string
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
			if isTLSDeny(st) {
				continue
			}
			principal, _ := st["Principal"].(map[string]any)
			senders = append(senders, fmt.Sprint(principal["Service"]))
			if st["Effect"] != "Allow" || principal["Service"] != "sns.amazonaws.com" || !slices.Equal(actions(st), []string{"sqs:SendMessage"}) {
				t.Errorf("%s: statement %v, want sns.amazonaws.com allowed sqs:SendMessage", id, st)
			}
			if got := resources(st); !slices.Equal(got, []string{"${" + sesEvents + ".Arn}"}) {
				t.Errorf("%s: resources %v, want the ses-events queue", id, got)
			}
			cond, _ := st["Condition"].(map[string]any)
			arnEq, _ := cond["ArnEquals"].(map[string]any)
			if refTarget(arnEq["aws:SourceArn"]) != topic {
				t.Errorf("%s: condition %v, want aws:SourceArn = the topic", id, st["Condition"])
			}
		}
	}
	if !slices.Equal(senders, []string{"sns.amazonaws.com"}) {
		t.Errorf("the %s queue's policy lets %v send, want only sns.amazonaws.com", queue.SESEvents.Name, senders)
	}
}

// onTopic are the resources of type typ (a topic policy, a subscription)
// on topic (a logical id), by logical id.
func onTopic(doc cfnTemplate, typ, topic string) map[string]cfnResource {
	out := map[string]cfnResource{}
	for id, r := range doc.ofType(typ) {
		on := []any{r.Properties["TopicArn"]}
		if ts, ok := r.Properties["Topics"].([]any); ok {
			on = ts
		}
		if slices.ContainsFunc(on, func(v any) bool { return refTarget(v) == topic }) {
			out[id] = r
		}
	}
	return out
}
