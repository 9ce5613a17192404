package main

import (
	"maps"
	"reflect"
	"testing"

	"github.com/sesame-mail/sesame/internal/routes"
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
			apiKeys:                           true,
			"dynamodb:BatchWriteItem on " + tableArn + " (keys WS#*#CAMPAIGNRCPT#*)": true,
			"dynamodb:PutItem on " + tableArn + " (keys WS#*#CAMPAIGN, WS#*#IDEM)":   true,
		},
		routes.CancelCampaign.Function: {
			apiKeys: true,
			"dynamodb:UpdateItem on " + tableArn + " (keys WS#*#CAMPAIGN)": true,
		},
	}
	for fn, want := range cases {
		maps.Copy(want, ownLogsGrants(s.doc, ids[fn]))
		if got := functionGrants(t, s.doc, ids[fn]); !reflect.DeepEqual(got, want) {
			t.Errorf("%s grants\n%v\nwant\n%v", fn, sortedKeys(got), sortedKeys(want))
		}
	}
}

// A draft evaluates a whole segment, as POST /segments does: the same
// memory and API Gateway's timeout.
func TestSendBulkSizing(t *testing.T) {
	if got, want := sizingOf(routes.SendBulk.Function), sizingOf(routes.CreateSegment.Function); got != want || got.timeout < 28e9 {
		t.Errorf("send-bulk sizing %+v, want %+v (28 s)", got, want)
	}
}
