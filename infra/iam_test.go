package main

import (
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/grants"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/routes"
)

func TestNoWildcardActions(t *testing.T) {
	s := synth(t)
	stmts := policyStatements(s.doc)
	if len(stmts) == 0 {
		t.Fatal("no policy statements in the template")
	}
	for id, sts := range stmts {
		for _, st := range sts {
			if _, ok := st["NotAction"]; ok {
				t.Errorf("%s: NotAction grants everything else: %v", id, st)
			}
			if _, ok := st["NotResource"]; ok {
				t.Errorf("%s: NotResource grants everything else: %v", id, st)
			}
			ses := false
			for _, a := range actions(st) {
				if a == "*" || strings.HasSuffix(a, ":*") {
					t.Errorf("%s: wildcard action %q", id, a)
				}
				ses = ses || strings.HasPrefix(a, "ses:")
			}
			// GetAccount takes no resource: AWS allows it only on "*".
			if !ses || slices.Equal(actions(st), []string{"ses:GetAccount"}) {
				continue
			}
			for _, r := range resources(st) {
				if r == "*" || !strings.HasPrefix(r, sesArnPrefix) {
					t.Errorf("%s: SES actions %v on %q, want only this account's and region's SES resources", id, actions(st), r)
				}
			}
		}
	}
}

// Every function gets exactly what its functionAccess entry says, on the
// stack's own resources, plus (for a consumer) consuming its own queue.
func TestFunctionGrantsMatchTable(t *testing.T) {
	s := synth(t)
	tableArn := "${" + onlyID(t, s.doc, "AWS::DynamoDB::Table") + ".Arn}"
	queues := queueIDs(s.doc)
	sets := configSetIDs(s.doc)
	consumerQueue := map[string]string{}
	for _, c := range routes.Consumers {
		consumerQueue[c.Function] = "${" + queues[c.Queue.Name] + ".Arn}"
	}

	for name, id := range functionIDs(t, s.doc) {
		a := functionAccess[name]
		want := map[string]bool{}
		for _, act := range a.Table {
			want[act+" on "+tableArn] = true
		}
		if a.QueryIndexes {
			want["dynamodb:Query on "+tableArn+"/index/*"] = true
		}
		if a.APIKeys {
			want["dynamodb:UpdateItem on "+tableArn+" (API keys only)"] = true
		}
		for _, k := range a.Keyed {
			want[k.Action+" on "+tableArn+" (keys "+strings.Join(k.LeadingKeys, ", ")+")"] = true
		}
		for _, q := range a.SendTo {
			want["sqs:SendMessage on ${"+queues[q.Name]+".Arn}"] = true
		}
		if a.SendEmail {
			for _, act := range sesSendActions {
				want[act+" on "+sesArnPrefix+"identity/*"] = true
				for _, m := range trackingModes {
					want[act+" on "+sesArnPrefix+"configuration-set/${"+sets[m.mode]+"}"] = true
				}
			}
		}
		if a.SignInMail {
			want["ses:SendEmail on "+sesArnPrefix+"identity/*"] = true
		}
		if a.ReadAccount {
			want["ses:GetAccount on *"] = true
		}
		maps.Copy(want, ownLogsGrants(s.doc, id))
		got := functionGrants(t, s.doc, id)
		if q, ok := consumerQueue[name]; ok {
			for _, act := range []string{"sqs:ReceiveMessage", "sqs:DeleteMessage"} {
				if !got[act+" on "+q] {
					t.Errorf("%s: no %s on its queue", name, act)
				}
			}
			for _, act := range sqsConsumeActions {
				delete(got, act+" on "+q)
			}
		}
		for g := range got {
			if !want[g] {
				t.Errorf("%s: grant %s is not in its functionAccess entry", name, g)
			}
		}
		for w := range want {
			if !got[w] {
				t.Errorf("%s: missing grant %s", name, w)
			}
		}
	}
}

// The send routes' policy, spelled out rather than read back from the table.
func TestSendRoutesPolicy(t *testing.T) {
	s := synth(t)
	tableArn := "${" + onlyID(t, s.doc, "AWS::DynamoDB::Table") + ".Arn}"
	reviewQueue := "${" + queueIDs(s.doc)[queue.Review.Name] + ".Arn}"
	sets := configSetIDs(s.doc)
	webhooksQueue := "${" + queueIDs(s.doc)[queue.Webhooks.Name] + ".Arn}"
	want := map[string]bool{"sqs:SendMessage on " + reviewQueue: true, "sqs:SendMessage on " + webhooksQueue: true}
	for _, act := range []string{"GetItem", "BatchGetItem", "PutItem", "UpdateItem", "DeleteItem", "Query"} {
		want["dynamodb:"+act+" on "+tableArn] = true
	}
	// An email and its kept content go in one BatchWriteItem: those items only.
	want["dynamodb:BatchWriteItem on "+tableArn+" (keys WS#*#EMAIL#*, WS#*#BODY#*)"] = true
	for _, r := range []string{"identity/*", "configuration-set/${" + sets["full"] + "}",
		"configuration-set/${" + sets["essential"] + "}", "configuration-set/${" + sets["off"] + "}"} {
		want["ses:SendRawEmail on "+sesArnPrefix+r] = true
	}
	ids := functionIDs(t, s.doc)
	for _, r := range []routes.Route{routes.Send, routes.SendBatch} {
		wantGrants(t, s.doc, ids[r.Function], want)
	}
}

// The do-not-send list's write routes, spelled out: a conditional put per
// address added, a conditional delete, the key lookup; nothing of SES.
func TestSuppressionWriteRoutesPolicy(t *testing.T) {
	s := synth(t)
	tableArn := "${" + onlyID(t, s.doc, "AWS::DynamoDB::Table") + ".Arn}"
	want := map[string]bool{
		"dynamodb:PutItem on " + tableArn:                         true,
		"dynamodb:DeleteItem on " + tableArn:                      true,
		"dynamodb:UpdateItem on " + tableArn + " (API keys only)": true,
	}
	ids := functionIDs(t, s.doc)
	for _, r := range []routes.Route{routes.AddSuppressions, routes.DeleteSuppression} {
		wantGrants(t, s.doc, ids[r.Function], want)
	}
}

// The deliverability check, spelled out: the key lookup and rate limit,
// nothing else of the table, no other service.
func TestCheckDeliverabilityGrants(t *testing.T) {
	s := synth(t)
	tableArn := "${" + onlyID(t, s.doc, "AWS::DynamoDB::Table") + ".Arn}"
	id := functionIDs(t, s.doc)[routes.CheckDeliverability.Function]
	want := map[string]bool{
		"dynamodb:UpdateItem on " + tableArn + " (API keys only)":                         true,
		"dynamodb:GetItem on " + tableArn + " (keys " + dynamo.WorkspaceKeysPattern + ")": true,
	}
	wantGrants(t, s.doc, id, want)
}

func TestEveryFunctionHasAccessEntry(t *testing.T) {
	if p := accessTableProblems(); len(p) > 0 {
		t.Errorf("permission table: %v", p)
	}
	for _, fn := range functionNames() {
		if _, ok := functionAccess[fn]; !ok {
			t.Errorf("function %s has no functionAccess entry", fn)
		}
	}
}

func TestReadRoutesGrants(t *testing.T) {
	s := synth(t)
	allowed := []string{"dynamodb:GetItem", "dynamodb:Query", "dynamodb:UpdateItem"}
	ids := functionIDs(t, s.doc)
	for _, r := range routes.API {
		if r.Method != "GET" || r.Public {
			continue
		}
		var got []string
		ownLogs := ownLogsGrants(s.doc, ids[r.Function])
		for g := range functionGrants(t, s.doc, ids[r.Function]) {
			if !ownLogs[g] {
				got = append(got, strings.SplitN(g, " on ", 2)[0])
			}
		}
		for _, a := range got {
			if !slices.Contains(allowed, a) {
				t.Errorf("%s (GET route): action %s beyond %v", r.Function, a, allowed)
			}
		}
		// The rate limit updates the API key item on every request.
		if !slices.Contains(got, "dynamodb:UpdateItem") {
			t.Errorf("%s: no dynamodb:UpdateItem for the rate limit (actions %v)", r.Function, got)
		}
	}
}

// A public route reads no key and no workspace data: its function may
// only write its logs.
func TestPublicRoutesGrants(t *testing.T) {
	s := synth(t)
	ids := functionIDs(t, s.doc)
	public := 0
	for _, r := range routes.API {
		if !r.Public {
			continue
		}
		public++
		ownLogs := ownLogsGrants(s.doc, ids[r.Function])
		for g := range functionGrants(t, s.doc, ids[r.Function]) {
			if !ownLogs[g] {
				t.Errorf("%s (public route): grant %s beyond its logs", r.Function, g)
			}
		}
	}
	if public == 0 {
		t.Error("no public route: the API document is served without a key")
	}
}

// A profile is known by its name, so a second profile of the same name
// fails before synth.
func TestAccessProfileNames(t *testing.T) {
	saved := functionAccess
	t.Cleanup(func() { functionAccess = saved })

	functionAccess = maps.Clone(saved)
	renamed := functionAccess[routes.GetEmail.Function]
	renamed.Table = []string{grants.GetItem}
	functionAccess[routes.GetEmail.Function] = renamed
	if p := accessTableProblems(); !slices.Contains(p, `two different access profiles are named "read-route"`) {
		t.Errorf("two read-route profiles: problems %v", p)
	}

	functionAccess = maps.Clone(saved)
	unnamed := functionAccess[routes.Send.Function]
	unnamed.Name = ""
	functionAccess[routes.Send.Function] = unnamed
	if p := accessTableProblems(); !slices.Contains(p, routes.Send.Function+": its access profile has no name") {
		t.Errorf("a profile without a name: problems %v", p)
	}
}

// The functions of one access profile run as one role, the profile's own,
// which only Lambda assumes. It has no managed policy: the AWS-managed
// AWSLambdaBasicExecutionRole would let them write to every log group.
// TestFunctionGrantsMatchTable checks what each function's role grants.
func TestRolePerAccessProfile(t *testing.T) {
	s := synth(t)
	roleOf := func(fnID string) string {
		return getAttTarget(s.doc.Resources[fnID].Properties["Role"], "Arn")
	}
	onePerProfile(t, s.doc, "AWS::IAM::Role", roleOf)

	wantTrust := map[string]any{
		"Version": "2012-10-17",
		"Statement": []any{map[string]any{
			"Action":    "sts:AssumeRole",
			"Effect":    "Allow",
			"Principal": map[string]any{"Service": "lambda.amazonaws.com"},
		}},
	}
	for name, fnID := range functionIDs(t, s.doc) {
		p := s.doc.Resources[roleOf(fnID)].Properties
		if got := p["AssumeRolePolicyDocument"]; !reflect.DeepEqual(got, wantTrust) {
			t.Errorf("%s: role trust policy %v, want Lambda only", name, got)
		}
		if got := p["ManagedPolicyArns"]; got != nil {
			t.Errorf("%s: role has managed policies %v, want none", name, got)
		}
	}
}

// Functions of one profile share its role, and so a consumer's grant to
// consume its queue: a profile serves consumers of one queue, or routes.
func TestAccessProfileSharedAcrossQueues(t *testing.T) {
	saved := functionAccess
	t.Cleanup(func() { functionAccess = saved })
	const want = `access profile "review" is shared by functions that consume different queues (or none)`

	functionAccess = maps.Clone(saved)
	functionAccess[routes.Status.Function] = functionAccess[routes.Review.Function]
	if p := accessTableProblems(); !slices.Contains(p, want) {
		t.Errorf("review and status consumers sharing a profile: problems %v", p)
	}

	functionAccess = maps.Clone(saved)
	functionAccess[routes.Send.Function] = functionAccess[routes.Review.Function]
	if p := accessTableProblems(); !slices.Contains(p, want) {
		t.Errorf("a route sharing the review consumer's profile: problems %v", p)
	}

	functionAccess = saved
	if p := accessTableProblems(); len(p) > 0 {
		t.Errorf("permission table: %v", p)
	}
}

// The unsubscribe pages, spelled out: update contacts and put
// suppressions, nothing else of the table (no read, no API key), and no
// other service.
func TestUnsubscribePagesGrants(t *testing.T) {
	s := synth(t)
	tableArn := "${" + onlyID(t, s.doc, "AWS::DynamoDB::Table") + ".Arn}"
	id := functionIDs(t, s.doc)[routes.Unsubscribe.Function]
	want := map[string]bool{
		"dynamodb:UpdateItem on " + tableArn + " (keys WS#*#CONTACT#*)":  true,
		"dynamodb:PutItem on " + tableArn + " (keys WS#*#SUPPRESSION#*)": true,
	}
	wantGrants(t, s.doc, id, want)
}

// The dashboard faces the internet: of SES it may only send (the sign-in
// links); domains and their identities are the console's.
func TestDashboardGrants(t *testing.T) {
	s := synth(t)
	id := functionIDs(t, s.doc)[routes.Dashboard.Function]
	sends := 0
	for g := range functionGrants(t, s.doc, id) {
		action := strings.SplitN(g, " on ", 2)[0]
		switch {
		case action == "ses:SendEmail":
			sends++
		case strings.HasPrefix(action, "ses:"):
			t.Errorf("the dashboard may %s", g)
		}
	}
	if sends == 0 {
		t.Error("the dashboard cannot send its sign-in mail")
	}
}
