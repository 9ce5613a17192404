package grants

import (
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/routes"
)

func TestLeadingKeyLike(t *testing.T) {
	cases := map[string]struct {
		key, pattern string
		want         bool
	}{
		"star inside":        {"WS#w1#CONTACT#c1", "WS#*#CONTACT#*", true},
		"another kind":       {"WS#w1#CONTACTEMAIL#x", "WS#*#CONTACT#*", false},
		"exact":              {"WS#w1#CAMPAIGN", "WS#*#CAMPAIGN", true},
		"longer than exact":  {"WS#w1#CAMPAIGNRCPT#1", "WS#*#CAMPAIGN", false},
		"prefix star":        {"APIKEY#abc", APIKeysPattern, true},
		"star spans hashes":  {"WS#a#b#SUPPRESSION", "WS#*#SUPPRESSION", true},
		"no key":             {"", "*", false},
		"question mark":      {"AB", "A?", true},
		"trailing star only": {"A", "A*", true},
	}
	for name, c := range cases {
		if got := LeadingKeyLike(c.key, c.pattern); got != c.want {
			t.Errorf("%s: LeadingKeyLike(%q, %q) = %v, want %v", name, c.key, c.pattern, got, c.want)
		}
	}
}

func TestMissing(t *testing.T) {
	cases := map[string]struct {
		call Call
		want string // "" granted, else a part of the missing grant
	}{
		"table action": {Call{Function: routes.WebhookDispatch.Function, Action: Query, LeadingKey: "WS#w#WHATTEMPT#e"}, ""},
		"table action not granted": {Call{Function: routes.WebhookDispatch.Function, Action: DeleteItem, LeadingKey: "WS#w#WEBHOOK"},
			"dynamodb:DeleteItem on leading key"},
		"index query granted":     {Call{Function: routes.ListEmails.Function, Action: Query, Index: "gsi1", LeadingKey: "x"}, ""},
		"index query not granted": {Call{Function: routes.Status.Function, Action: Query, Index: "gsi1", LeadingKey: "x"}, "QueryIndexes"},
		"api key count":           {Call{Function: routes.CancelCampaign.Function, Action: UpdateItem, LeadingKey: "APIKEY#k"}, ""},
		"keyed":                   {Call{Function: routes.CancelCampaign.Function, Action: UpdateItem, LeadingKey: "WS#w#CAMPAIGN"}, ""},
		"keyed, another item":     {Call{Function: routes.CancelCampaign.Function, Action: UpdateItem, LeadingKey: "WS#w#CONTACT#c"}, "WS#w#CONTACT#c"},
		"keyed, another action":   {Call{Function: routes.CancelCampaign.Function, Action: PutItem, LeadingKey: "WS#w#CAMPAIGN"}, "dynamodb:PutItem"},
		"send to a granted queue": {Call{Function: routes.Status.Function, Action: SendMessage, Queue: queue.Webhooks.Name}, ""},
		"send to another queue":   {Call{Function: routes.Status.Function, Action: SendMessage, Queue: queue.Sends.Name}, `queue "sends"`},
		"own queue's visibility":  {Call{Function: routes.WebhookDispatch.Function, Action: "sqs:ChangeMessageVisibility", Queue: queue.Webhooks.Name}, ""},
		"another queue's visibility": {Call{Function: routes.WebhookDispatch.Function, Action: "sqs:ChangeMessageVisibility", Queue: queue.Review.Name},
			"sqs:ChangeMessageVisibility"},
		"send email":             {Call{Function: routes.Review.Function, Action: SendRawEmail}, ""},
		"send email not granted": {Call{Function: routes.Status.Function, Action: SendRawEmail}, SendRawEmail},
		"simple send email":      {Call{Function: routes.Review.Function, Action: "ses:SendEmail"}, "ses:SendEmail"},
		"account":                {Call{Function: routes.CampaignSender.Function, Action: GetAccount}, ""},
		"account not granted":    {Call{Function: routes.Review.Function, Action: GetAccount}, GetAccount},
		"unknown service":        {Call{Function: routes.Review.Function, Action: "s3:GetObject"}, "s3:GetObject"},
		"no profile":             {Call{Function: "new-function", Action: GetAccount}, "no ByFunction entry"},
	}
	for name, c := range cases {
		got := Missing(c.call)
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%s: Missing(%+v) = %q, want %q", name, c.call, got, c.want)
		}
	}
}

// Every function of the stack has a profile, and every profile a function.
func TestEveryFunctionHasAProfile(t *testing.T) {
	names := map[string]bool{}
	for _, fn := range routes.FunctionNames() {
		names[fn] = true
		if _, ok := ByFunction[fn]; !ok {
			t.Errorf("function %s has no ByFunction entry", fn)
		}
	}
	for fn := range ByFunction {
		if !names[fn] {
			t.Errorf("ByFunction entry %s names no function", fn)
		}
	}
}
