package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"

	"github.com/sesame-mail/sesame/internal/config"
	"github.com/sesame-mail/sesame/internal/dynamo/schema"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/routes"
)

const testStackName = "SesameTest"

// testDir holds the dummy binaries and the cloud assembly of the one synth.
var testDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "sesame-infra-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testDir = dir
	// No jsii.Close here: it races with the runtime's own wait goroutine
	// (jsii-runtime-go v1.127.0), which fails `go test -race`.
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// synthed is the stack synthesized once for every test: a synth costs
// seconds, an assertion milliseconds.
type synthed struct {
	template assertions.Template
	doc      cfnTemplate
}

var (
	synthOnce   sync.Once
	synthResult *synthed
	synthErr    error
)

func synth(t *testing.T) *synthed {
	t.Helper()
	synthOnce.Do(func() { synthResult, synthErr = doSynth() })
	if synthErr != nil {
		t.Fatalf("synth: %v", synthErr)
	}
	return synthResult
}

func doSynth() (s *synthed, err error) {
	defer func() {
		if r := recover(); r != nil { // jsii reports errors as panics
			err = fmt.Errorf("%v", r)
		}
	}()
	binDir := filepath.Join(testDir, "bin")
	if err := writeDummyBinaries(binDir); err != nil {
		return nil, err
	}
	app := awscdk.NewApp(&awscdk.AppProps{Outdir: jsii.String(filepath.Join(testDir, "cdk.out"))})
	stack := NewSesameStack(app, testStackName, &SesameStackProps{BinDir: binDir})
	tpl := assertions.Template_FromStack(stack, nil)

	b, err := json.Marshal(tpl.ToJSON())
	if err != nil {
		return nil, err
	}
	s = &synthed{template: tpl}
	if err := json.Unmarshal(b, &s.doc); err != nil {
		return nil, err
	}
	return s, nil
}

// writeDummyBinaries stands in for `make build`: assets only need to exist.
func writeDummyBinaries(binDir string) error {
	for _, fn := range functionNames() {
		dir := filepath.Join(binDir, fn)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "bootstrap"), []byte(fn), 0o755); err != nil {
			return err
		}
	}
	return nil
}

// check runs a jsii assertion, turning its panic into a test failure.
func check(t *testing.T, assert func()) {
	t.Helper()
	defer func() {
		t.Helper()
		if r := recover(); r != nil {
			t.Error(r)
		}
	}()
	assert()
}

type cfnTemplate struct {
	Resources map[string]cfnResource
	Outputs   map[string]any
}

type cfnResource struct {
	Type                string
	Properties          map[string]any
	DeletionPolicy      string
	UpdateReplacePolicy string
}

// ofType returns the resources of a CloudFormation type by logical id.
func (c cfnTemplate) ofType(typ string) map[string]cfnResource {
	out := map[string]cfnResource{}
	for id, r := range c.Resources {
		if r.Type == typ {
			out[id] = r
		}
	}
	return out
}

// getAttTarget is the logical id in {"Fn::GetAtt": [id, attr]}, or "".
func getAttTarget(v any, attr string) string {
	m, ok := v.(map[string]any)
	if !ok {
		return ""
	}
	ga, ok := m["Fn::GetAtt"].([]any)
	if !ok || len(ga) != 2 || ga[1] != attr {
		return ""
	}
	id, _ := ga[0].(string)
	return id
}

// refTarget is the logical id in {"Ref": id}, or "".
func refTarget(v any) string {
	m, ok := v.(map[string]any)
	if !ok {
		return ""
	}
	id, _ := m["Ref"].(string)
	return id
}

// getAttTargets collects every logical id named by a GetAtt of attr in v.
func getAttTargets(v any, attr string) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		if id := getAttTarget(v, attr); id != "" {
			return []string{id}
		}
		for _, e := range v {
			out = append(out, getAttTargets(e, attr)...)
		}
	case []any:
		for _, e := range v {
			out = append(out, getAttTargets(e, attr)...)
		}
	}
	return out
}

// routeFunctions are the functions built from bin/<Function>/bootstrap, as
// opposed to helper functions CDK may add for custom resources.
func (c cfnTemplate) routeFunctions() map[string]cfnResource {
	out := map[string]cfnResource{}
	for id, r := range c.ofType("AWS::Lambda::Function") {
		if r.Properties["Handler"] == "bootstrap" {
			out[id] = r
		}
	}
	return out
}

// functionIDs maps each function of routes.API and routes.Consumers to the
// logical id of its AWS::Lambda::Function, found by its description.
func functionIDs(t *testing.T, doc cfnTemplate) map[string]string {
	t.Helper()
	byDesc := map[string]string{}
	for id, fn := range doc.routeFunctions() {
		byDesc[fn.Properties["Description"].(string)] = id
	}
	out := map[string]string{}
	want := map[string]string{} // function → description
	for _, r := range routes.API {
		want[r.Function] = "Sesame " + r.Method + " " + r.Path
	}
	for _, c := range routes.Consumers {
		want[c.Function] = "Sesame consumer of the " + c.Queue.Name + " queue"
	}
	for fn, desc := range want {
		id, ok := byDesc[desc]
		if !ok {
			t.Fatalf("no function described %q (function %s)", desc, fn)
		}
		out[fn] = id
	}
	return out
}

// wantSizing is the memory (MB) and timeout (s) each function must have.
func wantSizing() map[string][2]float64 {
	out := map[string][2]float64{}
	for _, r := range routes.API {
		s := sizingOf(r)
		out[r.Function] = [2]float64{s.memoryMB, s.timeout.Seconds()}
	}
	for _, c := range routes.Consumers {
		s := consumerSizing(c)
		out[c.Function] = [2]float64{s.memoryMB, s.timeout.Seconds()}
	}
	return out
}

func TestRouteFunctions(t *testing.T) {
	s := synth(t)
	fns := s.doc.routeFunctions()
	if want := len(routes.API) + len(routes.Consumers); len(fns) != want {
		t.Fatalf("%d bootstrap functions, want one per route and consumer (%d)", len(fns), want)
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
	secretID := onlyID(t, s.doc, "AWS::SecretsManager::Secret")
	logGroups := s.doc.ofType("AWS::Logs::LogGroup")
	consumerFunctions := map[string]bool{}
	for name, id := range functionIDs(t, s.doc) {
		for _, c := range routes.Consumers {
			if c.Function == name {
				consumerFunctions[id] = true
			}
		}
	}
	for id, fn := range fns {
		vars, _ := fn.Properties["Environment"].(map[string]any)["Variables"].(map[string]any)
		if vars["LOG_LEVEL"] != "info" {
			t.Errorf("%s: LOG_LEVEL = %v, want info", id, vars["LOG_LEVEL"])
		}
		if refTarget(vars["SESAME_TABLE"]) != tableID {
			t.Errorf("%s: SESAME_TABLE = %v, want Ref %s", id, vars["SESAME_TABLE"], tableID)
		}
		// Routes get a dynamic reference to the secret, never a value in
		// the template; queue consumers page through nothing and get none.
		secret, _ := json.Marshal(vars["SESAME_CURSOR_SECRET"])
		if consumerFunctions[id] {
			if vars["SESAME_CURSOR_SECRET"] != nil {
				t.Errorf("%s: a consumer has SESAME_CURSOR_SECRET", id)
			}
		} else if !strings.Contains(string(secret), "{{resolve:secretsmanager:") ||
			!strings.Contains(string(secret), `{"Ref":"`+secretID+`"}`) {
			t.Errorf("%s: SESAME_CURSOR_SECRET = %s, want a dynamic reference to %s", id, secret, secretID)
		}
		lg := refTarget(fn.Properties["LoggingConfig"].(map[string]any)["LogGroup"])
		if got := logGroups[lg].Properties["RetentionInDays"]; got == nil {
			t.Errorf("%s: log group %q has no retention", id, lg)
		}
	}
}

// The send routes' sizing, pinned in numbers (API Gateway's 29 s limit,
// 20 MB messages in memory) rather than read back from the table.
func TestSendRoutesSizing(t *testing.T) {
	s := synth(t)
	ids := functionIDs(t, s.doc)
	for _, r := range []routes.Route{routes.Send, routes.SendBatch} {
		p := s.doc.Resources[ids[r.Function]].Properties
		if p["Timeout"] != 28.0 || p["MemorySize"] != 1024.0 {
			t.Errorf("%s: Timeout %v, MemorySize %v; want 28 s, 1024 MB", r.Function, p["Timeout"], p["MemorySize"])
		}
	}
}

// queueIDs maps each queue.Def name to the logical id of its queue.
func queueIDs(doc cfnTemplate) map[string]string {
	out := map[string]string{}
	for id, q := range doc.ofType("AWS::SQS::Queue") {
		name, _ := q.Properties["QueueName"].(string)
		out[strings.TrimPrefix(name, testStackName+"-")] = id
	}
	return out
}

// configSetIDs maps each tracking mode to the logical id of its set.
func configSetIDs(doc cfnTemplate) map[string]string {
	out := map[string]string{}
	for id, cs := range doc.ofType("AWS::SES::ConfigurationSet") {
		name, _ := cs.Properties["Name"].(string)
		out[strings.TrimPrefix(name, testStackName+"-")] = id
	}
	return out
}

// The consumers' sizing, pinned in numbers: review rebuilds 20 MB
// messages; every consumer ends within half its queue's 60 s visibility
// (webhook-dispatch: 10 POSTs of up to 10 s at once per batch).
func TestConsumersSizing(t *testing.T) {
	s := synth(t)
	ids := functionIDs(t, s.doc)
	want := map[string][2]float64{
		routes.Review.Function:          {1024, 30},
		routes.Status.Function:          {256, 30},
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
		for _, q := range a.sendTo {
			want[queueURLVars[q.Name]] = queues[q.Name]
		}
		if q, ok := consumedQueue(name); ok && a.ownQueueURL {
			want[queueURLVars[q.Name]] = queues[q.Name]
		}
		if a.sendEmail {
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
		if !slices.Equal(a.sendTo, []queue.Def{queue.Review, queue.Webhooks}) || !a.sendEmail {
			t.Errorf("%s: want the review and webhooks queue URLs and the configuration sets", r.Function)
		}
	}
	if !functionAccess[routes.Review.Function].sendEmail {
		t.Errorf("review: want the configuration sets")
	}
}

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
			// A review may take most of its timeout, so it runs alone.
			want := 10.0
			if c == routes.Review {
				want = 1
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

func onlyID(t *testing.T, doc cfnTemplate, typ string) string {
	t.Helper()
	rs := doc.ofType(typ)
	if len(rs) != 1 {
		t.Fatalf("%d %s, want 1", len(rs), typ)
	}
	for id := range rs {
		return id
	}
	return ""
}

// keySchema is the CloudFormation KeySchema of a partition and sort key.
func keySchema(pk, sk string) []any {
	ks := []any{map[string]any{"AttributeName": pk, "KeyType": "HASH"}}
	if sk != "" {
		ks = append(ks, map[string]any{"AttributeName": sk, "KeyType": "RANGE"})
	}
	return ks
}

func TestTableMatchesSchema(t *testing.T) {
	s := synth(t)
	tbl := s.doc.Resources[onlyID(t, s.doc, "AWS::DynamoDB::Table")]
	p := tbl.Properties
	want := schema.Table

	if got, exp := p["KeySchema"], keySchema(want.PartitionKey, want.SortKey); !reflect.DeepEqual(got, exp) {
		t.Errorf("KeySchema = %v, want %v", got, exp)
	}

	// Every key attribute of the table and its indexes, once, as a string.
	var wantAttrs []string
	for _, a := range []string{want.PartitionKey, want.SortKey} {
		if a != "" && !slices.Contains(wantAttrs, a) {
			wantAttrs = append(wantAttrs, a)
		}
	}
	var wantGSIs []any
	for _, ix := range want.Indexes {
		for _, a := range []string{ix.PartitionKey, ix.SortKey} {
			if a != "" && !slices.Contains(wantAttrs, a) {
				wantAttrs = append(wantAttrs, a)
			}
		}
		wantGSIs = append(wantGSIs, map[string]any{
			"IndexName":  ix.Name,
			"KeySchema":  keySchema(ix.PartitionKey, ix.SortKey),
			"Projection": map[string]any{"ProjectionType": "ALL"},
		})
	}
	var gotAttrs []string
	for _, d := range p["AttributeDefinitions"].([]any) {
		d := d.(map[string]any)
		if d["AttributeType"] != "S" {
			t.Errorf("attribute %v has type %v, want S", d["AttributeName"], d["AttributeType"])
		}
		gotAttrs = append(gotAttrs, d["AttributeName"].(string))
	}
	slices.Sort(wantAttrs)
	slices.Sort(gotAttrs)
	if !slices.Equal(gotAttrs, wantAttrs) {
		t.Errorf("AttributeDefinitions = %v, want %v", gotAttrs, wantAttrs)
	}

	gotGSIs, _ := p["GlobalSecondaryIndexes"].([]any)
	byName := func(a, b any) int {
		return strings.Compare(a.(map[string]any)["IndexName"].(string), b.(map[string]any)["IndexName"].(string))
	}
	slices.SortFunc(gotGSIs, byName)
	slices.SortFunc(wantGSIs, byName)
	if !reflect.DeepEqual(gotGSIs, wantGSIs) {
		t.Errorf("GlobalSecondaryIndexes = %v, want %v", gotGSIs, wantGSIs)
	}

	wantTTL := map[string]any{"AttributeName": want.TTLAttribute, "Enabled": true}
	if got := p["TimeToLiveSpecification"]; !reflect.DeepEqual(got, wantTTL) {
		t.Errorf("TimeToLiveSpecification = %v, want %v", got, wantTTL)
	}

	check(t, func() {
		s.template.HasResource(jsii.String("AWS::DynamoDB::Table"), map[string]any{
			"DeletionPolicy":      "Retain",
			"UpdateReplacePolicy": "Retain",
			"Properties": map[string]any{
				"BillingMode": "PAY_PER_REQUEST",
				"PointInTimeRecoverySpecification": map[string]any{
					"PointInTimeRecoveryEnabled": true,
				},
			},
		})
	})
}

func TestQueuesWithDeadLetterQueues(t *testing.T) {
	s := synth(t)
	byName := map[string]string{} // QueueName → logical id
	for id, q := range s.doc.ofType("AWS::SQS::Queue") {
		name, _ := q.Properties["QueueName"].(string)
		byName[name] = id
	}
	if len(byName) != 2*len(queue.All) {
		t.Errorf("%d queues, want a queue and a DLQ for each of %d", len(byName), len(queue.All))
	}
	for _, d := range queue.All {
		qid, ok := byName[testStackName+"-"+d.Name]
		dlqID, dlqOK := byName[testStackName+"-"+d.DLQName()]
		if !ok || !dlqOK {
			t.Errorf("queue %s: queue found %v, DLQ found %v", d.Name, ok, dlqOK)
			continue
		}
		p := s.doc.Resources[qid].Properties
		if got := p["VisibilityTimeout"]; got != d.VisibilityTimeout.Seconds() {
			t.Errorf("%s: VisibilityTimeout = %v, want %v", d.Name, got, d.VisibilityTimeout.Seconds())
		}
		rp, _ := p["RedrivePolicy"].(map[string]any)
		if got := rp["maxReceiveCount"]; got != float64(d.MaxReceives) {
			t.Errorf("%s: maxReceiveCount = %v, want %d", d.Name, got, d.MaxReceives)
		}
		if got := getAttTarget(rp["deadLetterTargetArn"], "Arn"); got != dlqID {
			t.Errorf("%s: dead-letter target = %q, want %q", d.Name, got, dlqID)
		}
	}
}

// resourcePaths maps each AWS::ApiGateway::Resource to its full path.
func resourcePaths(doc cfnTemplate) map[string]string {
	res := doc.ofType("AWS::ApiGateway::Resource")
	paths := map[string]string{}
	var pathOf func(id string) string
	pathOf = func(id string) string {
		if p, ok := paths[id]; ok {
			return p
		}
		r := res[id]
		parent := ""
		if pid := refTarget(r.Properties["ParentId"]); pid != "" {
			parent = pathOf(pid)
		} // else the parent is the API's root resource
		paths[id] = parent + "/" + r.Properties["PathPart"].(string)
		return paths[id]
	}
	for id := range res {
		pathOf(id)
	}
	return paths
}

func TestMethodPerRoute(t *testing.T) {
	s := synth(t)
	paths := resourcePaths(s.doc)
	methods := s.doc.ofType("AWS::ApiGateway::Method")
	fns := s.doc.routeFunctions()
	distinct := map[string]bool{}
	for _, r := range routes.API {
		distinct[r.Path] = true
	}
	if len(methods) != len(routes.API)+len(distinct) {
		t.Errorf("%d methods, want one per route (%d) and an ANY per path (%d)", len(methods), len(routes.API), len(distinct))
	}
	// ANY on each path reaches a function of that path, whose router
	// answers other methods with 405.
	for path := range distinct {
		found := false
		for _, m := range methods {
			if m.Properties["HttpMethod"] != "ANY" || paths[refTarget(m.Properties["ResourceId"])] != path {
				continue
			}
			found = true
			integ, _ := m.Properties["Integration"].(map[string]any)
			targets := getAttTargets(integ["Uri"], "Arn")
			if len(targets) != 1 || !strings.HasSuffix(fns[targets[0]].Properties["Description"].(string), " "+path) {
				t.Errorf("ANY %s integrates %v, want a function of the path", path, targets)
			}
		}
		if !found {
			t.Errorf("no ANY method on %s", path)
		}
	}

	// Shared prefixes are one resource each: one per distinct path prefix.
	prefixes := map[string]bool{}
	for _, r := range routes.API {
		segs := strings.Split(strings.TrimPrefix(r.Path, "/"), "/")
		for i := range segs {
			prefixes["/"+strings.Join(segs[:i+1], "/")] = true
		}
	}
	if len(paths) != len(prefixes) {
		t.Errorf("%d API resources, want %d (one per distinct prefix)", len(paths), len(prefixes))
	}

	for _, r := range routes.API {
		found := false
		for id, m := range methods {
			p := m.Properties
			if p["HttpMethod"] != r.Method || paths[refTarget(p["ResourceId"])] != r.Path {
				continue
			}
			found = true
			integ, _ := p["Integration"].(map[string]any)
			if integ["Type"] != "AWS_PROXY" {
				t.Errorf("%s %s: integration %v, want AWS_PROXY", r.Method, r.Path, integ["Type"])
			}
			targets := getAttTargets(integ["Uri"], "Arn")
			if len(targets) != 1 {
				t.Errorf("%s %s (%s): integration URI names %v, want one function", r.Method, r.Path, id, targets)
				continue
			}
			desc := fns[targets[0]].Properties["Description"]
			if want := "Sesame " + r.Method + " " + r.Path; desc != want {
				t.Errorf("%s %s: integrates %s (%v), want the function of route %s", r.Method, r.Path, targets[0], desc, r.Function)
			}
		}
		if !found {
			t.Errorf("no method %s %s", r.Method, r.Path)
		}
	}
}

func TestGatewayResponses(t *testing.T) {
	s := synth(t)
	want := []struct {
		typ, status, code string
		retryAfter        bool
	}{
		{"DEFAULT_4XX", "", "invalid_request", false},
		{"DEFAULT_5XX", "", "internal_error", false},
		{"REQUEST_TOO_LARGE", "413", "message_too_large", false},
		{"THROTTLED", "429", "rate_limited", true},
		{"UNAUTHORIZED", "401", "unauthorized", false},
		{"MISSING_AUTHENTICATION_TOKEN", "404", "not_found", false},
		{"ACCESS_DENIED", "403", "access_denied", false},
	}
	byType := map[string]cfnResource{}
	for _, r := range s.doc.ofType("AWS::ApiGateway::GatewayResponse") {
		byType[r.Properties["ResponseType"].(string)] = r
	}
	for _, w := range want {
		r, ok := byType[w.typ]
		if !ok {
			t.Errorf("no gateway response %s", w.typ)
			continue
		}
		p := r.Properties
		if got, _ := p["StatusCode"].(string); got != w.status {
			t.Errorf("%s: StatusCode = %q, want %q", w.typ, got, w.status)
		}
		params, _ := p["ResponseParameters"].(map[string]any)
		if got := params["gatewayresponse.header.X-Request-Id"]; got != "context.requestId" {
			t.Errorf("%s: X-Request-Id mapping = %v, want context.requestId", w.typ, got)
		}
		if got := params["gatewayresponse.header.Retry-After"]; w.retryAfter && got != "'1'" {
			t.Errorf("%s: Retry-After mapping = %v, want '1'", w.typ, got)
		}

		tmpl, _ := p["ResponseTemplates"].(map[string]any)["application/json"].(string)
		var body struct {
			Error map[string]any `json:"error"`
		}
		if err := json.Unmarshal([]byte(tmpl), &body); err != nil {
			t.Errorf("%s: template is not JSON: %v: %s", w.typ, err, tmpl)
			continue
		}
		e := body.Error
		if e["code"] != w.code || e["request_id"] != "$context.requestId" || e["message"] == "" {
			t.Errorf("%s: envelope = %v, want code %s and request_id $context.requestId", w.typ, e, w.code)
		}
		if v, ok := e["param"]; !ok || v != nil {
			t.Errorf("%s: param = %v (present %v), want null", w.typ, v, ok)
		}
	}
}

// policyStatements returns every statement of inline and managed policies
// the stack defines, keyed by the owning resource's logical id.
func policyStatements(doc cfnTemplate) map[string][]map[string]any {
	out := map[string][]map[string]any{}
	add := func(id string, docu any) {
		d, _ := docu.(map[string]any)
		switch st := d["Statement"].(type) {
		case []any:
			for _, s := range st {
				out[id] = append(out[id], s.(map[string]any))
			}
		case map[string]any:
			out[id] = append(out[id], st)
		}
	}
	for id, r := range doc.Resources {
		switch r.Type {
		case "AWS::IAM::Policy", "AWS::IAM::ManagedPolicy":
			add(id, r.Properties["PolicyDocument"])
		case "AWS::IAM::Role":
			pols, _ := r.Properties["Policies"].([]any)
			for _, p := range pols {
				add(id, p.(map[string]any)["PolicyDocument"])
			}
		}
	}
	return out
}

// actions normalizes a statement's Action (a string or a list).
func actions(st map[string]any) []string {
	switch a := st["Action"].(type) {
	case string:
		return []string{a}
	case []any:
		out := make([]string, 0, len(a))
		for _, v := range a {
			out = append(out, v.(string))
		}
		return out
	}
	return nil
}

func TestNoWildcardActions(t *testing.T) {
	s := synth(t)
	stmts := policyStatements(s.doc)
	if len(s.doc.ofType("AWS::IAM::Policy")) == 0 {
		t.Fatal("no AWS::IAM::Policy in the template")
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
			if !ses {
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

// sesArnPrefix starts every SES ARN of the stack's account and region.
const sesArnPrefix = "arn:${AWS::Partition}:ses:${AWS::Region}:${AWS::AccountId}:"

// render writes a CloudFormation value as a string: Ref X as ${X}, GetAtt
// X.A as ${X.A}, Fn::Join joined, so ARNs can be compared as text.
func render(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case map[string]any:
		if id := refTarget(v); id != "" {
			return "${" + id + "}"
		}
		if ga, ok := v["Fn::GetAtt"].([]any); ok && len(ga) == 2 {
			return fmt.Sprintf("${%v.%v}", ga[0], ga[1])
		}
		if j, ok := v["Fn::Join"].([]any); ok && len(j) == 2 {
			parts, _ := j[1].([]any)
			out := make([]string, len(parts))
			for i, p := range parts {
				out[i] = render(p)
			}
			return strings.Join(out, j[0].(string))
		}
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// resources normalizes a statement's Resource (one or a list), rendered.
func resources(st map[string]any) []string {
	switch r := st["Resource"].(type) {
	case []any:
		out := make([]string, 0, len(r))
		for _, v := range r {
			out = append(out, render(v))
		}
		return out
	case nil:
		return nil
	default:
		return []string{render(r)}
	}
}

// functionGrants is every "action on resource" of the Allow statements in
// the policies attached to function fnID's role.
func functionGrants(t *testing.T, doc cfnTemplate, fnID string) map[string]bool {
	t.Helper()
	role := getAttTarget(doc.Resources[fnID].Properties["Role"], "Arn")
	if role == "" {
		t.Fatalf("%s: role is not a role of the stack", fnID)
	}
	stmts := policyStatements(doc)
	out := map[string]bool{}
	add := func(sts []map[string]any) {
		for _, st := range sts {
			if st["Effect"] != "Allow" {
				continue
			}
			suffix := ""
			if cond, ok := st["Condition"]; ok {
				if !reflect.DeepEqual(cond, apiKeyCondition) {
					t.Errorf("%s: unexpected condition %v", fnID, cond)
				}
				suffix = " (API keys only)"
			}
			for _, a := range actions(st) {
				for _, r := range resources(st) {
					out[a+" on "+r+suffix] = true
				}
			}
		}
	}
	add(stmts[role]) // inline policies of the role itself
	for id, p := range doc.ofType("AWS::IAM::Policy") {
		for _, r := range p.Properties["Roles"].([]any) {
			if refTarget(r) == role {
				add(stmts[id])
			}
		}
	}
	return out
}

// apiKeyCondition limits a statement to API-key items of the table.
var apiKeyCondition = map[string]any{
	"ForAllValues:StringLike": map[string]any{"dynamodb:LeadingKeys": []any{"APIKEY#*"}},
}

// sqsConsumeActions are what an SQS event source may grant on its queue.
var sqsConsumeActions = []string{
	"sqs:ReceiveMessage", "sqs:ChangeMessageVisibility", "sqs:GetQueueUrl",
	"sqs:DeleteMessage", "sqs:GetQueueAttributes",
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
		for _, act := range a.table {
			want[act+" on "+tableArn] = true
		}
		if a.queryIndexes {
			want["dynamodb:Query on "+tableArn+"/index/*"] = true
		}
		if a.apiKeys {
			want["dynamodb:UpdateItem on "+tableArn+" (API keys only)"] = true
		}
		for _, q := range a.sendTo {
			want["sqs:SendMessage on ${"+queues[q.Name]+".Arn}"] = true
		}
		if a.sendEmail {
			for _, act := range sesSendActions {
				want[act+" on "+sesArnPrefix+"identity/*"] = true
				for _, m := range trackingModes {
					want[act+" on "+sesArnPrefix+"configuration-set/${"+sets[m.mode]+"}"] = true
				}
			}
		}
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
	for _, act := range []string{"BatchGetItem", "PutItem", "UpdateItem", "DeleteItem", "Query"} {
		want["dynamodb:"+act+" on "+tableArn] = true
	}
	for _, r := range []string{"identity/*", "configuration-set/${" + sets["full"] + "}",
		"configuration-set/${" + sets["essential"] + "}", "configuration-set/${" + sets["off"] + "}"} {
		want["ses:SendRawEmail on "+sesArnPrefix+r] = true
	}
	ids := functionIDs(t, s.doc)
	for _, r := range []routes.Route{routes.Send, routes.SendBatch} {
		got := functionGrants(t, s.doc, ids[r.Function])
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: grants\n%v\nwant\n%v", r.Function, sortedKeys(got), sortedKeys(want))
		}
	}
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
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
		if r.Method != "GET" {
			continue
		}
		var got []string
		for g := range functionGrants(t, s.doc, ids[r.Function]) {
			got = append(got, strings.SplitN(g, " on ", 2)[0])
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

func TestStageAndOutputs(t *testing.T) {
	s := synth(t)
	stage := s.doc.Resources[onlyID(t, s.doc, "AWS::ApiGateway::Stage")].Properties
	if stage["TracingEnabled"] != false {
		t.Errorf("TracingEnabled = %v, want false", stage["TracingEnabled"])
	}
	als, _ := stage["AccessLogSetting"].(map[string]any)
	var format map[string]string
	if err := json.Unmarshal([]byte(als["Format"].(string)), &format); err != nil {
		t.Errorf("access log format is not JSON: %v", err)
	}
	for _, k := range []string{"requestId", "ip", "method", "path", "status", "latency"} {
		if format[k] == "" {
			t.Errorf("access log format lacks %q: %v", k, format)
		}
	}
	if getAttTarget(als["DestinationArn"], "Arn") == "" {
		t.Errorf("access logs go to %v, want a log group of the stack", als["DestinationArn"])
	}
	check(t, func() {
		s.template.HasResourceProperties(jsii.String("AWS::ApiGateway::Stage"), map[string]any{
			"MethodSettings": assertions.Match_ArrayWith(&[]any{assertions.Match_ObjectLike(&map[string]any{
				"HttpMethod":           "*",
				"ResourcePath":         "/*",
				"DataTraceEnabled":     false,
				"ThrottlingRateLimit":  assertions.Match_AnyValue(),
				"ThrottlingBurstLimit": assertions.Match_AnyValue(),
			})}),
		})
	})
	for _, name := range []string{"ApiUrl", "TableName"} {
		check(t, func() { s.template.HasOutput(jsii.String(name), map[string]any{}) })
	}
}

func TestMissingBinaries(t *testing.T) {
	dir := t.TempDir()
	want := len(routes.API) + len(routes.Consumers)
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

// The variables that carry queue URLs are the ones config.API reads.
func TestQueueURLVarsAreConfig(t *testing.T) {
	tags := map[string]bool{}
	typ := reflect.TypeOf(config.API{})
	for i := range typ.NumField() {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("env"), ",")
		tags[name] = true
	}
	want := map[string]string{
		queue.Review.Name:   "SESAME_REVIEW_QUEUE_URL",
		queue.Webhooks.Name: "SESAME_WEBHOOKS_QUEUE_URL",
	}
	if !reflect.DeepEqual(queueURLVars, want) {
		t.Errorf("queueURLVars = %v, want %v", queueURLVars, want)
	}
	for q, v := range queueURLVars {
		if !tags[v] {
			t.Errorf("queue %s: %s is not a variable of config.API", q, v)
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
	ruleID := onlyID(t, s.doc, "AWS::Events::Rule")
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

// sqsGrants is every SQS "action on resource" of function fn.
func sqsGrants(t *testing.T, doc cfnTemplate, fnID string) []string {
	t.Helper()
	var out []string
	for g := range functionGrants(t, doc, fnID) {
		if strings.HasPrefix(g, "sqs:") {
			out = append(out, g)
		}
	}
	slices.Sort(out)
	return out
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
		"dynamodb:GetItem on " + tableArn,
		"dynamodb:PutItem on " + tableArn,
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

func TestQueueRetention(t *testing.T) {
	s := synth(t)
	queues := queueIDs(s.doc)
	const fourteenDays = 1209600.0
	for _, d := range queue.All {
		dlq := s.doc.Resources[queues[d.DLQName()]].Properties
		if got := dlq["MessageRetentionPeriod"]; got != fourteenDays {
			t.Errorf("%s: MessageRetentionPeriod = %v, want %v", d.DLQName(), got, fourteenDays)
		}
		got := s.doc.Resources[queues[d.Name]].Properties["MessageRetentionPeriod"]
		if d == queue.Webhooks {
			if got != fourteenDays {
				t.Errorf("%s: MessageRetentionPeriod = %v, want %v (the retry schedule outlasts 4 days' default)", d.Name, got, fourteenDays)
			}
		} else if got != nil {
			t.Errorf("%s: MessageRetentionPeriod = %v, want SQS's default", d.Name, got)
		}
	}
}
