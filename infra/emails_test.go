package main

import (
	"testing"

	"github.com/sesame-mail/sesame/internal/routes"
)

// A cancel of a scheduled email reads and updates the email and deletes
// its held content, and nothing else: no SES, no queue.
func TestCancelEmailGrants(t *testing.T) {
	s := synth(t)
	tableArn := "${" + onlyID(t, s.doc, "AWS::DynamoDB::Table") + ".Arn}"
	wantGrants(t, s.doc, functionIDs(t, s.doc)[routes.CancelEmail.Function], map[string]bool{
		"dynamodb:UpdateItem on " + tableArn + " (API keys only)":              true,
		"dynamodb:GetItem on " + tableArn + " (keys WS#*#EMAIL#*, WS#*#EMAIL)": true,
		"dynamodb:UpdateItem on " + tableArn + " (keys WS#*#EMAIL#*)":          true,
		"dynamodb:Query on " + tableArn + " (keys WS#*#HELD#*)":                true,
		"dynamodb:DeleteItem on " + tableArn + " (keys WS#*#HELD#*)":           true,
	})
}
