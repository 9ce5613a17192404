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

	"github.com/sesame-mail/sesame/internal/dynamo"
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
	for _, r := range routes.API {
		dir := filepath.Join(binDir, r.Function)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "bootstrap"), []byte(r.Function), 0o755); err != nil {
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

func TestRouteFunctions(t *testing.T) {
	s := synth(t)
	fns := s.doc.routeFunctions()
	if len(fns) != len(routes.API) {
		t.Fatalf("%d route functions, want one per route (%d)", len(fns), len(routes.API))
	}
	check(t, func() {
		s.template.ResourcePropertiesCountIs(jsii.String("AWS::Lambda::Function"), map[string]any{
			"Handler":       "bootstrap",
			"Runtime":       "provided.al2023",
			"Architectures": []any{"arm64"},
			"MemorySize":    256,
			"Timeout":       10,
		}, jsii.Number(len(routes.API)))
	})

	tableID := onlyID(t, s.doc, "AWS::DynamoDB::Table")
	secretID := onlyID(t, s.doc, "AWS::SecretsManager::Secret")
	logGroups := s.doc.ofType("AWS::Logs::LogGroup")
	for id, fn := range fns {
		vars, _ := fn.Properties["Environment"].(map[string]any)["Variables"].(map[string]any)
		if vars["LOG_LEVEL"] != "info" {
			t.Errorf("%s: LOG_LEVEL = %v, want info", id, vars["LOG_LEVEL"])
		}
		if refTarget(vars["SESAME_TABLE"]) != tableID {
			t.Errorf("%s: SESAME_TABLE = %v, want Ref %s", id, vars["SESAME_TABLE"], tableID)
		}
		// A dynamic reference to the secret, never a value in the template.
		secret, _ := json.Marshal(vars["SESAME_CURSOR_SECRET"])
		if !strings.Contains(string(secret), "{{resolve:secretsmanager:") ||
			!strings.Contains(string(secret), `{"Ref":"`+secretID+`"}`) {
			t.Errorf("%s: SESAME_CURSOR_SECRET = %s, want a dynamic reference to %s", id, secret, secretID)
		}
		lg := refTarget(fn.Properties["LoggingConfig"].(map[string]any)["LogGroup"])
		if got := logGroups[lg].Properties["RetentionInDays"]; got == nil {
			t.Errorf("%s: log group %q has no retention", id, lg)
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
	want := dynamo.Table

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
	if len(methods) != len(routes.API) {
		t.Errorf("%d methods, want one per route (%d)", len(methods), len(routes.API))
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
			for _, a := range actions(st) {
				if a == "*" || strings.HasSuffix(a, ":*") {
					t.Errorf("%s: wildcard action %q", id, a)
				}
			}
		}
	}
}

func TestReadRoutesGrants(t *testing.T) {
	s := synth(t)
	stmts := policyStatements(s.doc)
	rolePolicies := map[string][]string{} // role logical id → policy ids
	for id, p := range s.doc.ofType("AWS::IAM::Policy") {
		for _, r := range p.Properties["Roles"].([]any) {
			rolePolicies[refTarget(r)] = append(rolePolicies[refTarget(r)], id)
		}
	}
	allowed := []string{"dynamodb:GetItem", "dynamodb:Query", "dynamodb:UpdateItem"}
	for id, fn := range s.doc.routeFunctions() {
		if !strings.HasPrefix(fn.Properties["Description"].(string), "Sesame GET ") {
			continue
		}
		var got []string
		for _, pid := range rolePolicies[getAttTarget(fn.Properties["Role"], "Arn")] {
			for _, st := range stmts[pid] {
				got = append(got, actions(st)...)
			}
		}
		for _, a := range got {
			if !slices.Contains(allowed, a) {
				t.Errorf("%s (GET route): action %s beyond %v", id, a, allowed)
			}
		}
		// The rate limit updates the API key item on every request.
		if !slices.Contains(got, "dynamodb:UpdateItem") {
			t.Errorf("%s: no dynamodb:UpdateItem for the rate limit (actions %v)", id, got)
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
	if got := missingBinaries(dir); len(got) != len(routes.API) {
		t.Errorf("empty bin dir: %d missing, want %d", len(got), len(routes.API))
	}
	if err := writeDummyBinaries(dir); err != nil {
		t.Fatal(err)
	}
	if got := missingBinaries(dir); len(got) != 0 {
		t.Errorf("complete bin dir: missing %v", got)
	}
}
