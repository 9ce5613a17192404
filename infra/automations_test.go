package main

import (
	"testing"

	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/routes"
)

// The event route, spelled out: the contact by id or email claim, one
// Query of the event's listeners, the start transaction's claims, run,
// wake-up and minute count, and the runs' first wake-up on the automations
// queue. Nothing else of the table, no SES.
func TestAutomationEventsRouteGrants(t *testing.T) {
	s := synth(t)
	tableArn := "${" + onlyID(t, s.doc, "AWS::DynamoDB::Table") + ".Arn}"
	queues := queueIDs(s.doc)
	want := map[string]bool{
		"dynamodb:UpdateItem on " + tableArn + " (API keys only)":                                                true,
		"dynamodb:GetItem on " + tableArn + " (keys WS#*#CONTACT#*, WS#*#CONTACTEMAIL#*)":                        true,
		"dynamodb:Query on " + tableArn + " (keys WS#*#AUTOEVENT#*)":                                             true,
		"dynamodb:PutItem on " + tableArn + " (keys WS#*#AUTOKEY#*, WS#*#AUTOLIVE#*, WS#*#AUTORUN#*, AUTODUE#*)": true,
		"dynamodb:UpdateItem on " + tableArn + " (keys WS#*#AUTORATE#*)":                                         true,
		"sqs:SendMessage on ${" + queues[queue.Automations.Name] + ".Arn}":                                       true,
	}
	wantGrants(t, s.doc, functionIDs(t, s.doc)[routes.AutomationEvents.Function], want)
}
