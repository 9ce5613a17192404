package main

import (
	"context"
	"encoding/json"
	"maps"
	"os/exec"
	"path"
	"reflect"
	"slices"
	"strings"
	"testing"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/jsii-runtime-go"
	"github.com/sethvargo/go-envconfig"

	"github.com/sesame-mail/sesame/internal/api"
	"github.com/sesame-mail/sesame/internal/config"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/sizing"
)

// wantSizing is the memory (MB) and timeout (s) each function must have.
func wantSizing() map[string][2]float64 {
	out := map[string][2]float64{}
	for _, fn := range functionNames() {
		s, ok := sizing.Of(fn)
		if !ok {
			panic("infra test: no sizing of " + fn)
		}
		out[fn] = [2]float64{s.MemoryMB, s.Timeout.Seconds()}
	}
	return out
}

func TestRouteFunctions(t *testing.T) {
	s := synth(t)
	fns := s.doc.routeFunctions()
	if want := len(routes.RouteFunctions()) + len(routes.Consumers) + len(routes.Schedules) + len(routes.Sites); len(fns) != want {
		t.Fatalf("%d bootstrap functions, want one per route, consumer, schedule and site (%d)", len(fns), want)
	}
	check(t, func() {
		s.template.ResourcePropertiesCountIs(jsii.String("AWS::Lambda::Function"), map[string]any{
			"Handler":       "bootstrap",
			"Runtime":       "provided.al2023",
			"Architectures": []any{"arm64"},
		}, jsii.Number(len(fns)))
	})

	ids := functionIDs(t, s.doc)
	for name, want := range wantSizing() {
		p := fns[ids[name]].Properties
		if p["MemorySize"] != want[0] || p["Timeout"] != want[1] {
			t.Errorf("%s: MemorySize %v, Timeout %v; want %v MB, %v s", name, p["MemorySize"], p["Timeout"], want[0], want[1])
		}
	}

	tableID := onlyID(t, s.doc, "AWS::DynamoDB::Table")
	secretID := secretIDOf(t, s.doc, "CursorSecret")
	unsubSecretID := secretIDOf(t, s.doc, "UnsubscribeSecret")
	logGroups := s.doc.ofType("AWS::Logs::LogGroup")
	for name, id := range ids {
		fn := fns[id]
		reads := readsVars(t, name)
		vars, _ := fn.Properties["Environment"].(map[string]any)["Variables"].(map[string]any)
		if vars["LOG_LEVEL"] != "info" {
			t.Errorf("%s: LOG_LEVEL = %v, want info", id, vars["LOG_LEVEL"])
		}
		// Each stack-wide variable goes to the functions whose config
		// reads it (get-openapi reads no table; only the list routes sign
		// cursors; the pages check unsubscribe links, the campaign sender
		// signs them), and to no other.
		for v, want := range map[string]func(){
			"SESAME_TABLE": func() {
				if refTarget(vars["SESAME_TABLE"]) != tableID {
					t.Errorf("%s: SESAME_TABLE = %v, want Ref %s", id, vars["SESAME_TABLE"], tableID)
				}
			},
			// A dynamic reference to the secret, never a value in the template.
			"SESAME_CURSOR_SECRET":      func() { wantSecretRef(t, id, "SESAME_CURSOR_SECRET", vars, secretID) },
			"SESAME_UNSUBSCRIBE_SECRET": func() { wantSecretRef(t, id, "SESAME_UNSUBSCRIBE_SECRET", vars, unsubSecretID) },
		} {
			if reads[v] {
				want()
			} else if vars[v] != nil {
				t.Errorf("%s: %s set, but its config does not read it", name, v)
			}
		}
		lg := logGroupOf(s.doc, id)
		if got := logGroups[lg].Properties["RetentionInDays"]; got == nil {
			t.Errorf("%s: log group %q has no retention", id, lg)
		}
	}
}

// A stalled AWS call ends (config.DefaultCallTimeout) with time left for
// the function to answer 503, or for a consumer to report its failures
// (queue.ConsumerMargin) before Lambda ends it; and well before API
// Gateway's 29 s.
func TestSDKCallsEndBeforeTheFunction(t *testing.T) {
	const apiGateway = 29
	if config.DefaultCallTimeout.Seconds() >= apiGateway/2 {
		t.Errorf("default call timeout %v: want well under API Gateway's %d s", config.DefaultCallTimeout, apiGateway)
	}
	for name, want := range wantSizing() {
		if left := want[1] - (config.DefaultCallTimeout + queue.ConsumerMargin).Seconds(); left < 1 {
			t.Errorf("%s: timeout %v s leaves %v s after a stalled call and the consumer margin, want at least 1 s", name, want[1], left)
		}
	}
}

// The send routes' sizing, pinned in numbers (API Gateway's 29 s limit;
// the memory their largest requests were measured to need with headroom,
// internal/bench BenchmarkSendMemory) rather than read back from the table.
func TestSendRoutesSizing(t *testing.T) {
	s := synth(t)
	ids := functionIDs(t, s.doc)
	for r, mem := range map[routes.Route]float64{routes.Send: 512, routes.SendBatch: 1536} {
		p := s.doc.Resources[ids[r.Function]].Properties
		if p["Timeout"] != 28.0 || p["MemorySize"] != mem {
			t.Errorf("%s: Timeout %v, MemorySize %v; want 28 s, %v MB", r.Function, p["Timeout"], p["MemorySize"], mem)
		}
	}
}

// Adding 1,000 addresses may ride out throttling of the list's partition.
func TestAddSuppressionsSizing(t *testing.T) {
	s := synth(t)
	p := s.doc.Resources[functionIDs(t, s.doc)[routes.AddSuppressions.Function]].Properties
	if p["Timeout"] != 28.0 || p["MemorySize"] != 256.0 {
		t.Errorf("%s: Timeout %v, MemorySize %v; want 28 s, 256 MB", routes.AddSuppressions.Function, p["Timeout"], p["MemorySize"])
	}
}

// The consumers' sizing, pinned in numbers: review rebuilds 20 MB
// messages, measured by internal/bench BenchmarkSendMemory; every consumer ends within half its queue's 60 s visibility
// (webhook-dispatch: 10 POSTs of up to 10 s at once per batch).
func TestConsumersSizing(t *testing.T) {
	s := synth(t)
	ids := functionIDs(t, s.doc)
	want := map[string][2]float64{
		routes.Review.Function:          {512, 30},
		routes.Status.Function:          {128, 30},
		routes.WebhookDispatch.Function: {256, 30},
	}
	for fn, w := range want {
		p := s.doc.Resources[ids[fn]].Properties
		if p["MemorySize"] != w[0] || p["Timeout"] != w[1] {
			t.Errorf("%s: MemorySize %v, Timeout %v; want %v MB, %v s", fn, p["MemorySize"], p["Timeout"], w[0], w[1])
		}
	}
}

// consumedQueue is the queue function fn consumes, if it is a consumer.
func consumedQueue(fn string) (queue.Def, bool) {
	for _, c := range routes.Consumers {
		if c.Function == fn {
			return c.Queue, true
		}
	}
	return queue.Def{}, false
}

// queueURLVarSet is every variable that passes a queue URL.
func queueURLVarSet() map[string]bool {
	out := map[string]bool{}
	for _, v := range queueURLVars {
		out[v] = true
	}
	return out
}

func TestFunctionEnvironment(t *testing.T) {
	s := synth(t)
	ids := functionIDs(t, s.doc)
	queues := queueIDs(s.doc)
	sets := configSetIDs(s.doc)
	urlVars := queueURLVarSet()
	for name, id := range ids {
		a := functionAccess[name]
		vars, _ := s.doc.Resources[id].Properties["Environment"].(map[string]any)["Variables"].(map[string]any)
		want := map[string]string{} // variable → Ref target
		for _, q := range a.SendTo {
			want[queueURLVars[q.Name]] = queues[q.Name]
		}
		if q, ok := consumedQueue(name); ok && a.OwnQueueURL {
			want[queueURLVars[q.Name]] = queues[q.Name]
		}
		if a.SendEmail {
			for _, m := range trackingModes {
				want[m.envVar] = sets[m.mode]
			}
		}
		for v, target := range want {
			if got := refTarget(vars[v]); got == "" || got != target {
				t.Errorf("%s: %s = %v, want Ref %s", name, v, vars[v], target)
			}
		}
		for v := range vars {
			if strings.HasPrefix(v, "SESAME_CONFIG_SET_") || urlVars[v] {
				if _, ok := want[v]; !ok {
					t.Errorf("%s: %s set, but the function has no grant that uses it", name, v)
				}
			}
		}
	}
	for _, r := range []routes.Route{routes.Send, routes.SendBatch} {
		a := functionAccess[r.Function]
		if !slices.Equal(a.SendTo, []queue.Def{queue.Review, queue.Webhooks}) || !a.SendEmail {
			t.Errorf("%s: want the review and webhooks queue URLs and the configuration sets", r.Function)
		}
	}
	if !functionAccess[routes.Review.Function].SendEmail {
		t.Errorf("review: want the configuration sets")
	}
}

func TestConsumersEventSources(t *testing.T) {
	s := synth(t)
	ids := functionIDs(t, s.doc)
	queues := queueIDs(s.doc)
	mappings := s.doc.ofType("AWS::Lambda::EventSourceMapping")
	if len(mappings) != len(routes.Consumers) {
		t.Errorf("%d event source mappings, want one per consumer (%d)", len(mappings), len(routes.Consumers))
	}
	for _, c := range routes.Consumers {
		found := 0
		for id, m := range mappings {
			p := m.Properties
			if refTarget(p["FunctionName"]) != ids[c.Function] {
				continue
			}
			found++
			if got := getAttTarget(p["EventSourceArn"], "Arn"); got != queues[c.Queue.Name] {
				t.Errorf("%s (%s): event source %v, want queue %s", c.Function, id, p["EventSourceArn"], c.Queue.Name)
			}
			// A review may take most of its timeout, and a campaign chunk
			// fills an invocation, so each runs alone; the status consumer
			// pays its counters and queue requests once a batch of 100.
			want := 10.0
			switch c {
			case routes.Review, routes.CampaignSender:
				want = 1
			case routes.Status:
				want = 100
			}
			if p["BatchSize"] != want {
				t.Errorf("%s: BatchSize = %v, want %v", c.Function, p["BatchSize"], want)
			}
			if !reflect.DeepEqual(p["FunctionResponseTypes"], []any{"ReportBatchItemFailures"}) {
				t.Errorf("%s: FunctionResponseTypes = %v, want [ReportBatchItemFailures]", c.Function, p["FunctionResponseTypes"])
			}
		}
		if found != 1 {
			t.Errorf("%s: %d event source mappings, want 1", c.Function, found)
		}
		// A message must not come back while the batch that holds it runs.
		timeout := s.doc.Resources[ids[c.Function]].Properties["Timeout"].(float64)
		if timeout >= c.Queue.VisibilityTimeout.Seconds() {
			t.Errorf("%s: timeout %v s, want below the visibility timeout %v", c.Function, timeout, c.Queue.VisibilityTimeout)
		}
	}
}

func TestMissingBinaries(t *testing.T) {
	dir := t.TempDir()
	want := len(routes.RouteFunctions()) + len(routes.Consumers) + len(routes.Schedules) + len(routes.Sites)
	if got := missingBinaries(dir); len(got) != want {
		t.Errorf("empty bin dir: %d missing, want %d", len(got), want)
	}
	if err := writeDummyBinaries(dir); err != nil {
		t.Fatal(err)
	}
	if got := missingBinaries(dir); len(got) != 0 {
		t.Errorf("complete bin dir: missing %v", got)
	}
}

// configVars is every variable some function's config reads.
func configVars() map[string]bool {
	out := map[string]bool{}
	for _, f := range api.Functions {
		for _, v := range config.Vars(f.Config()) {
			out[v.Name] = true
		}
	}
	return out
}

// readsVars is the set of variables the config of function fn reads, as
// internal/api wires it.
func readsVars(t *testing.T, fn string) map[string]bool {
	t.Helper()
	f, ok := api.Function(fn)
	if !ok {
		t.Fatalf("no wiring of %s", fn)
	}
	out := map[string]bool{}
	for _, v := range config.Vars(f.Config()) {
		out[v.Name] = true
	}
	return out
}

// The stack's table of configs is the functions' own: the CDK app does not
// link internal/api.
func TestFunctionConfigs(t *testing.T) {
	for _, fn := range functionNames() {
		f, ok := api.Function(fn)
		if !ok {
			t.Errorf("no wiring of %s", fn)
			continue
		}
		if got, want := reflect.TypeOf(functionConfigs[fn]), reflect.TypeOf(f.Config()); got != want {
			t.Errorf("%s: functionConfigs has %v, the function reads %v", fn, got, want)
		}
	}
	if len(functionConfigs) != len(functionNames()) {
		t.Errorf("functionConfigs has %d entries for %d functions", len(functionConfigs), len(functionNames()))
	}
}

// The variables that carry queue URLs are ones the functions' configs read.
func TestQueueURLVarsAreConfig(t *testing.T) {
	tags := configVars()
	want := map[string]string{
		queue.Review.Name:      "SESAME_REVIEW_QUEUE_URL",
		queue.Webhooks.Name:    "SESAME_WEBHOOKS_QUEUE_URL",
		queue.Sends.Name:       "SESAME_SENDS_QUEUE_URL",
		queue.Automations.Name: "SESAME_AUTOMATIONS_QUEUE_URL",
	}
	if !reflect.DeepEqual(queueURLVars, want) {
		t.Errorf("queueURLVars = %v, want %v", queueURLVars, want)
	}
	for q, v := range queueURLVars {
		if !tags[v] {
			t.Errorf("queue %s: %s is not a variable of any function's config", q, v)
		}
	}
}

// What the stack gives each function starts it: its config loads and its
// handler builds, as functions/<name> does at start. Without any one of
// the variables its config requires it would not start, and would say
// which. Every variable the stack sets is one a function reads.
func TestFunctionEnvironmentStartsIt(t *testing.T) {
	s := synth(t)
	ids := functionIDs(t, s.doc)
	// The values are references CloudFormation resolves at deploy.
	aws := func(context.Context) (awssdk.Config, error) { return awssdk.Config{Region: "us-east-1"}, nil }
	for _, fn := range functionNames() {
		t.Run(fn, func(t *testing.T) {
			f, ok := api.Function(fn)
			if !ok {
				t.Fatalf("no wiring of %s", fn)
			}
			f = f.WithAWS(aws)
			vars, _ := s.doc.Resources[ids[fn]].Properties["Environment"].(map[string]any)["Variables"].(map[string]any)
			reads := readsVars(t, fn)
			env := map[string]string{}
			for k, v := range vars {
				if !reads[k] {
					t.Errorf("%s is set, but the function's config does not read it", k)
				}
				env[k] = "resolved at deploy"
				if k == "SESAME_PUBLIC_URL" { // a URL, built at deploy: https, as RFC 8058 wants of unsubscribe links
					if u := render(v); !strings.HasPrefix(u, "https://") {
						t.Errorf("SESAME_PUBLIC_URL = %s, want an https URL", u)
					}
					env[k] = "https://resolved-at-deploy.example/prod"
				}
				if lit, ok := v.(string); ok {
					env[k] = lit
				}
			}
			if _, err := f.Handler(t.Context(), envconfig.MapLookuper(env)); err != nil {
				t.Fatalf("with the stack's environment: %v", err)
			}
			for _, v := range config.Vars(f.Config()) {
				if !v.Required {
					continue
				}
				without := maps.Clone(env)
				delete(without, v.Name)
				_, err := f.Handler(t.Context(), envconfig.MapLookuper(without))
				if want := "config: " + v.Name + " is required by " + fn; err == nil || err.Error() != want {
					t.Errorf("without %s: err = %v, want %q", v.Name, err, want)
				}
			}
		})
	}
}

func TestStatusSendsOnlyToWebhooks(t *testing.T) {
	s := synth(t)
	ids := functionIDs(t, s.doc)
	queues := queueIDs(s.doc)
	own := "${" + queues[queue.SESEvents.Name] + ".Arn}"
	var sends []string
	for _, g := range sqsGrants(t, s.doc, ids[routes.Status.Function]) {
		if strings.HasSuffix(g, " on "+own) {
			continue // consuming its own queue
		}
		sends = append(sends, g)
	}
	want := []string{"sqs:SendMessage on ${" + queues[queue.Webhooks.Name] + ".Arn}"}
	if !slices.Equal(sends, want) {
		t.Errorf("status SQS grants besides its own queue: %v, want %v", sends, want)
	}
	vars := s.doc.Resources[ids[routes.Status.Function]].Properties["Environment"].(map[string]any)["Variables"].(map[string]any)
	if got := refTarget(vars["SESAME_WEBHOOKS_QUEUE_URL"]); got != queues[queue.Webhooks.Name] {
		t.Errorf("status: SESAME_WEBHOOKS_QUEUE_URL = %v, want Ref of the webhooks queue", vars["SESAME_WEBHOOKS_QUEUE_URL"])
	}
}

func TestWebhookDispatch(t *testing.T) {
	s := synth(t)
	ids := functionIDs(t, s.doc)
	queues := queueIDs(s.doc)
	fnID := ids[routes.WebhookDispatch.Function]
	webhooks := queues[queue.Webhooks.Name]

	mappings := 0
	for _, m := range s.doc.ofType("AWS::Lambda::EventSourceMapping") {
		if refTarget(m.Properties["FunctionName"]) == fnID &&
			getAttTarget(m.Properties["EventSourceArn"], "Arn") == webhooks {
			mappings++
		}
	}
	if mappings != 1 {
		t.Errorf("webhook-dispatch: %d event source mappings from the webhooks queue, want 1", mappings)
	}

	vars := s.doc.Resources[fnID].Properties["Environment"].(map[string]any)["Variables"].(map[string]any)
	if got := refTarget(vars["SESAME_WEBHOOKS_QUEUE_URL"]); got != webhooks {
		t.Errorf("webhook-dispatch: SESAME_WEBHOOKS_QUEUE_URL = %v, want Ref %s", vars["SESAME_WEBHOOKS_QUEUE_URL"], webhooks)
	}

	// Retries are scheduled with ChangeMessageVisibility on its own queue;
	// it sends nothing, and touches no other queue.
	own := "${" + webhooks + ".Arn}"
	got := sqsGrants(t, s.doc, fnID)
	if !slices.Contains(got, "sqs:ChangeMessageVisibility on "+own) {
		t.Errorf("webhook-dispatch: no sqs:ChangeMessageVisibility on its queue (SQS grants %v)", got)
	}
	for _, g := range got {
		act, res, _ := strings.Cut(g, " on ")
		if res != own || !slices.Contains(sqsConsumeActions, act) {
			t.Errorf("webhook-dispatch: unexpected SQS grant %s", g)
		}
	}

	tableArn := "${" + onlyID(t, s.doc, "AWS::DynamoDB::Table") + ".Arn}"
	var ddb []string
	for g := range functionGrants(t, s.doc, fnID) {
		if strings.HasPrefix(g, "dynamodb:") {
			ddb = append(ddb, g)
		}
	}
	slices.Sort(ddb)
	wantDDB := []string{
		"dynamodb:BatchWriteItem on " + tableArn + " (keys WS#*#WHATTEMPT#*)",
		"dynamodb:GetItem on " + tableArn,
		"dynamodb:PutItem on " + tableArn,
		"dynamodb:Query on " + tableArn,
		"dynamodb:UpdateItem on " + tableArn,
	}
	if !slices.Equal(ddb, wantDDB) {
		t.Errorf("webhook-dispatch DynamoDB grants %v, want %v", ddb, wantDDB)
	}
}

// The SSRF guard's escape hatch is for the local stack only.
func TestNoWebhookAllowedPrefixes(t *testing.T) {
	s := synth(t)
	b, err := json.Marshal(s.template.ToJSON())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "SESAME_WEBHOOK_ALLOWED_PREFIXES") {
		t.Error("SESAME_WEBHOOK_ALLOWED_PREFIXES appears in the template")
	}
}

// The functions of one access profile log to one group, the profile's own.
func TestLogGroupPerAccessProfile(t *testing.T) {
	s := synth(t)
	onePerProfile(t, s.doc, "AWS::Logs::LogGroup", func(fnID string) string {
		return logGroupOf(s.doc, fnID)
	})
}

// A function links the SDK client of a service only if its access profile
// uses the service: no SES client where nothing sends, no SQS client where
// no queue is used, no DynamoDB client where nothing reads the table (an
// imported SDK package runs its init at every start, used or not).
func TestFunctionsLinkOnlyTheirSDKClients(t *testing.T) {
	cmd := exec.Command("go", "list", "-tags", "lambda.norpc", "-f", "{{.ImportPath}} {{join .Deps \" \"}}", "./functions/...")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := map[string][]string{}
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		deps[path.Base(f[0])] = f[1:]
	}
	for _, fn := range functionNames() {
		a := accessOf(fn)
		_, consumer := consumedQueue(fn)
		uses := map[string]bool{
			"dynamodb": len(a.Table) > 0 || a.APIKeys || len(a.Keyed) > 0,
			"sqs":      len(a.SendTo) > 0 || consumer,
			"sesv2":    a.SendEmail || a.ReadAccount || a.SignInMail,
		}
		if deps[fn] == nil {
			t.Errorf("go list did not list functions/%s", fn)
			continue
		}
		for svc, want := range uses {
			if got := slices.Contains(deps[fn], "github.com/aws/aws-sdk-go-v2/service/"+svc); got != want {
				t.Errorf("%s: links the %s client: %v, its access profile uses %s: %v", fn, svc, got, svc, want)
			}
		}
	}
}

// wantSecretRef checks that variable v of function id is a dynamic
// reference to the secret secretID, never its value.
func wantSecretRef(t *testing.T, id, v string, vars map[string]any, secretID string) {
	t.Helper()
	secret, _ := json.Marshal(vars[v])
	if !strings.Contains(string(secret), "{{resolve:secretsmanager:") || !strings.Contains(string(secret), `{"Ref":"`+secretID+`"}`) {
		t.Errorf("%s: %s = %s, want a dynamic reference to %s", id, v, secret, secretID)
	}
}

// Every function logs JSON lines and Lambda writes none of its START, END
// and REPORT lines (about 270 bytes of CloudWatch Logs per invocation).
func TestFunctionsLogConfig(t *testing.T) {
	s := synth(t)
	for id, fn := range s.doc.routeFunctions() {
		lc, _ := fn.Properties["LoggingConfig"].(map[string]any)
		if lc["LogFormat"] != "JSON" || lc["SystemLogLevel"] != "WARN" || lc["ApplicationLogLevel"] != "INFO" {
			t.Errorf("%s: LoggingConfig %v, want JSON, system WARN, application INFO", id, lc)
		}
	}
}

// The status and webhook consumers wait to fill a batch, pinned in
// numbers: the latency it adds to an event that arrives alone.
func TestConsumersBatchingWindow(t *testing.T) {
	s := synth(t)
	ids := functionIDs(t, s.doc)
	want := map[string]any{
		routes.Review.Function:          nil,
		routes.Status.Function:          wantStatusWindow,
		routes.WebhookDispatch.Function: wantWebhookWindow,
	}
	for _, m := range s.doc.ofType("AWS::Lambda::EventSourceMapping") {
		for fn, w := range want {
			if refTarget(m.Properties["FunctionName"]) == ids[fn] && m.Properties["MaximumBatchingWindowInSeconds"] != w {
				t.Errorf("%s: MaximumBatchingWindowInSeconds %v, want %v", fn, m.Properties["MaximumBatchingWindowInSeconds"], w)
			}
		}
	}
}

const (
	wantStatusWindow  = 5.0
	wantWebhookWindow = 3.0
)
