package main

import (
	"testing"

	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/sizing"
)

// The bulk routes, spelled out. The draft reads what it needs and writes
// only the frozen chunks, the campaign and the Idempotency-Key record, no
// queue, no SES: it sends nothing. Cancel updates only campaign records.
func TestCampaignRoutesGrants(t *testing.T) {
	s := synth(t)
	tableArn := "${" + onlyID(t, s.doc, "AWS::DynamoDB::Table") + ".Arn}"
	apiKeys := "dynamodb:UpdateItem on " + tableArn + " (API keys only)"
	ids := functionIDs(t, s.doc)
	cases := map[string]map[string]bool{
		routes.SendBulk.Function: {
			"dynamodb:GetItem on " + tableArn: true,
			"dynamodb:Query on " + tableArn:   true,
			// The do-not-send list from its GSI1 list.
			"dynamodb:Query on " + tableArn + "/index/*": true,
			apiKeys: true,
			"dynamodb:BatchWriteItem on " + tableArn + " (keys WS#*#CAMPAIGNRCPT#*)": true,
			"dynamodb:PutItem on " + tableArn + " (keys WS#*#CAMPAIGN, WS#*#IDEM#*)": true,
		},
		routes.CancelCampaign.Function: {
			apiKeys: true,
			"dynamodb:UpdateItem on " + tableArn + " (keys WS#*#CAMPAIGN)": true,
		},
	}
	for fn, want := range cases {
		wantGrants(t, s.doc, ids[fn], want)
	}
}

// A draft evaluates a whole segment, as POST /segments does: the same
// memory and API Gateway's timeout.
func TestSendBulkSizing(t *testing.T) {
	if got, want := sizing.Route(routes.SendBulk), sizing.Route(routes.CreateSegment); got != want || got.Timeout < 28e9 {
		t.Errorf("send-bulk sizing %+v, want %+v (28 s)", got, want)
	}
}

// Each tick runs every minute: one EventBridge schedule rule targets each
// scheduled function, with the invoke permission for that rule only.
func TestTickSchedules(t *testing.T) {
	s := synth(t)
	ids := functionIDs(t, s.doc)
	want := map[string]bool{}
	for _, sch := range routes.Schedules {
		want[ids[sch.Function]] = true
	}
	targeted := map[string]int{}
	for id, r := range s.doc.ofType("AWS::Events::Rule") {
		if r.Properties["ScheduleExpression"] == nil {
			continue
		}
		if got := r.Properties["ScheduleExpression"]; got != "rate(1 minute)" {
			t.Errorf("%s: schedule %v, want rate(1 minute)", id, got)
		}
		targets, _ := r.Properties["Targets"].([]any)
		if len(targets) != 1 || !want[getAttTarget(targets[0].(map[string]any)["Arn"], "Arn")] {
			t.Errorf("%s: targets %v, want one scheduled function", id, targets)
			continue
		}
		targeted[getAttTarget(targets[0].(map[string]any)["Arn"], "Arn")]++
	}
	for fn := range want {
		if targeted[fn] != 1 {
			t.Errorf("%s: %d schedule rules, want 1", fn, targeted[fn])
		}
	}
	perms := map[string]int{}
	for _, p := range s.doc.ofType("AWS::Lambda::Permission") {
		if p.Properties["Principal"] == "events.amazonaws.com" {
			fn := getAttTarget(p.Properties["FunctionName"], "Arn")
			if !want[fn] {
				t.Errorf("events may invoke %v, want only the scheduled functions", p.Properties["FunctionName"])
			}
			perms[fn]++
		}
	}
	for fn := range want {
		if perms[fn] != 1 {
			t.Errorf("%s: %d invoke permissions for EventBridge, want 1", fn, perms[fn])
		}
	}
}
