package main

import (
	"encoding/json"
	"fmt"
	"maps"
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
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"

	"github.com/sesame-mail/sesame/internal/routes"
)

// The helpers every infra test shares: one synth of the stack for all of
// them, and lookups in its CloudFormation template.

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
	// monitoring is the monitoring nested stack's template, each of its
	// parameters replaced by what the main stack passes it (resolved), so
	// that it names the main stack's resources as doc does.
	monitoring cfnTemplate
	// monitoringParams are the nested stack's parameters.
	monitoringParams int
	// annotations are the stack's messages, cdk-nag's findings among them.
	annotations assertions.Annotations
}

var (
	synthOnce   sync.Once
	synthResult *synthed
	synthErr    error
)

func synth(t *testing.T) *synthed {
	t.Helper()
	synthOnce.Do(func() { synthResult, synthErr = doSynth("cdk.out", nil) })
	if synthErr != nil {
		t.Fatalf("synth: %v", synthErr)
	}
	return synthResult
}

var (
	synthsByName = map[string]*synthed{}
	synthErrs    = map[string]error{}
)

// synthWith synthesizes the stack once per name with the app context
// given; synth(t) is the default deployment.
func synthWith(t *testing.T, name string, context map[string]any) *synthed {
	t.Helper()
	if _, ok := synthsByName[name]; !ok && synthErrs[name] == nil {
		synthsByName[name], synthErrs[name] = doSynth("cdk.out-"+name, context)
	}
	if err := synthErrs[name]; err != nil {
		t.Fatalf("synth %s: %v", name, err)
	}
	return synthsByName[name]
}

// doSynth synthesizes the stack into testDir/outDir with the app context
// given (the -c KEY=VALUE of the CLI); nil is the default deployment.
func doSynth(outDir string, context map[string]any) (s *synthed, err error) {
	defer func() {
		if r := recover(); r != nil { // jsii reports errors as panics
			err = fmt.Errorf("%v", r)
		}
	}()
	binDir := filepath.Join(testDir, "bin")
	if err := writeDummyBinaries(binDir); err != nil {
		return nil, err
	}
	props := &awscdk.AppProps{Outdir: jsii.String(filepath.Join(testDir, outDir))}
	if context != nil {
		props.Context = &context
	}
	app := awscdk.NewApp(props)
	stack := NewSesameStack(app, testStackName, &SesameStackProps{BinDir: binDir})
	// AWS's rule packs judge every synth (TestNagPacks reads their
	// findings); no report files, only annotations.
	for _, pack := range []awscdk.IAspect{
		cdknag.NewAwsSolutionsChecks(&cdknag.NagPackProps{Reports: jsii.Bool(false)}),
		cdknag.NewServerlessChecks(&cdknag.NagPackProps{Reports: jsii.Bool(false)}),
	} {
		awscdk.Aspects_Of(app).Add(pack, nil)
	}
	tpl := assertions.Template_FromStack(stack, nil)

	b, err := json.Marshal(tpl.ToJSON())
	if err != nil {
		return nil, err
	}
	s = &synthed{template: tpl, annotations: assertions.Annotations_FromStack(stack)}
	if err := json.Unmarshal(b, &s.doc); err != nil {
		return nil, err
	}
	nested, ok := stack.Node().FindChild(jsii.String(monitoringID)).(awscdk.NestedStack)
	if !ok {
		return nil, fmt.Errorf("no nested stack %s", monitoringID)
	}
	if b, err = json.Marshal(assertions.Template_FromStack(nested, nil).ToJSON()); err != nil {
		return nil, err
	}
	var raw struct{ Parameters map[string]any }
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &s.monitoring); err != nil {
		return nil, err
	}
	s.monitoringParams = len(raw.Parameters)
	stacks := s.doc.ofType("AWS::CloudFormation::Stack")
	if len(stacks) != 1 {
		return nil, fmt.Errorf("%d nested stacks, want the monitoring one", len(stacks))
	}
	for _, st := range stacks {
		passed, _ := st.Properties["Parameters"].(map[string]any)
		if len(passed) != len(raw.Parameters) {
			return nil, fmt.Errorf("the main stack passes %d parameters, the monitoring stack has %d", len(passed), len(raw.Parameters))
		}
		for _, r := range s.monitoring.Resources {
			resolveParameters(r.Properties, passed)
		}
	}
	return s, nil
}

// resolveParameters replaces, in place, each Ref in v to one of params
// by its value.
func resolveParameters(v any, params map[string]any) any {
	switch v := v.(type) {
	case map[string]any:
		if p, ok := params[refTarget(v)]; ok && len(v) == 1 {
			return p
		}
		for k, e := range v {
			v[k] = resolveParameters(e, params)
		}
	case []any:
		for i, e := range v {
			v[i] = resolveParameters(e, params)
		}
	}
	return v
}

// deployment is the main template and the monitoring one as one (the
// latter's logical ids prefixed with monitoringID), for what counts over
// everything deployed.
func (s *synthed) deployment() cfnTemplate {
	all := cfnTemplate{Resources: map[string]cfnResource{}, Outputs: s.doc.Outputs}
	maps.Copy(all.Resources, s.doc.Resources)
	for id, r := range s.monitoring.Resources {
		all.Resources[monitoringID+"/"+id] = r
	}
	return all
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
	DependsOn           []string
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

// functionIDs maps each function of routes.RouteFunctions and routes.Consumers to the
// logical id of its AWS::Lambda::Function, found by its description.
func functionIDs(t *testing.T, doc cfnTemplate) map[string]string {
	t.Helper()
	byDesc := map[string]string{}
	for id, fn := range doc.routeFunctions() {
		byDesc[fn.Properties["Description"].(string)] = id
	}
	out := map[string]string{}
	want := map[string]string{} // function → description
	for _, f := range routes.RouteFunctions() {
		want[f.Name] = f.Description()
	}
	for _, c := range routes.Consumers {
		want[c.Function] = "Sesame consumer of the " + c.Queue.Name + " queue"
	}
	for _, s := range routes.Schedules {
		want[s.Function] = scheduledDescription(s)
	}
	for _, s := range routes.Sites {
		want[s.Function] = s.Description()
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
				suffix = conditionSuffix(t, fnID, cond)
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

// logGroupOf is the logical id of the log group function fnID logs to.
func logGroupOf(doc cfnTemplate, fnID string) string {
	cfg, _ := doc.Resources[fnID].Properties["LoggingConfig"].(map[string]any)
	return refTarget(cfg["LogGroup"])
}

// ownLogsGrants are the grants that let function fnID write to its own log
// group: create streams in it and put events in them.
// wantGrants checks that function fnID holds exactly the grants want and
// its own log group's, no more.
func wantGrants(t *testing.T, doc cfnTemplate, fnID string, want map[string]bool) {
	t.Helper()
	want = maps.Clone(want)
	maps.Copy(want, ownLogsGrants(doc, fnID))
	if got := functionGrants(t, doc, fnID); !reflect.DeepEqual(got, want) {
		t.Errorf("%s: grants\n%v\nwant\n%v", fnID, sortedKeys(got), sortedKeys(want))
	}
}

func ownLogsGrants(doc cfnTemplate, fnID string) map[string]bool {
	group := "${" + logGroupOf(doc, fnID) + ".Arn}"
	return map[string]bool{
		"logs:CreateLogStream on " + group: true,
		"logs:PutLogEvents on " + group:    true,
	}
}

// onePerProfile checks that the resource of each function (by of, a
// logical id of type typ) is shared by the functions of its access profile
// and by no other function.
func onePerProfile(t *testing.T, doc cfnTemplate, typ string, of func(fnID string) string) {
	t.Helper()
	byProfile := map[string]string{}  // profile name → resource id
	byResource := map[string]string{} // resource id → profile name
	for name, fnID := range functionIDs(t, doc) {
		profile := functionAccess[name].Name
		id := of(fnID)
		if doc.Resources[id].Type != typ {
			t.Errorf("%s: %q is not an %s of the stack", name, id, typ)
			continue
		}
		if other, ok := byProfile[profile]; ok && other != id {
			t.Errorf("%s: %s, other functions of profile %s have %s", name, id, profile, other)
		}
		if other, ok := byResource[id]; ok && other != profile {
			t.Errorf("%s (profile %s): %s, which belongs to profile %s", name, profile, id, other)
		}
		byProfile[profile] = id
		byResource[id] = profile
	}
}

// conditionSuffix names the items a statement's condition limits it to:
// " (API keys only)", or " (keys P1, P2)" for other leading keys.
func conditionSuffix(t *testing.T, fnID string, cond any) string {
	t.Helper()
	if reflect.DeepEqual(cond, apiKeyCondition) {
		return " (API keys only)"
	}
	like, _ := cond.(map[string]any)["ForAllValues:StringLike"].(map[string]any)
	keys, _ := like["dynamodb:LeadingKeys"].([]any)
	if len(cond.(map[string]any)) != 1 || len(like) != 1 || len(keys) == 0 {
		t.Errorf("%s: unexpected condition %v", fnID, cond)
		return " (unexpected condition)"
	}
	var names []string
	for _, k := range keys {
		names = append(names, k.(string))
	}
	return " (keys " + strings.Join(names, ", ") + ")"
}

// secretIDOf is the logical id of the stack's secret whose id starts
// with prefix.
func secretIDOf(t *testing.T, doc cfnTemplate, prefix string) string {
	t.Helper()
	var found []string
	for id := range doc.ofType("AWS::SecretsManager::Secret") {
		if strings.HasPrefix(id, prefix) {
			found = append(found, id)
		}
	}
	if len(found) != 1 {
		t.Fatalf("secrets named %s*: %v, want one", prefix, found)
	}
	return found[0]
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

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
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

// sesEventsTopicID is the logical id of the SES events' SNS topic.
func sesEventsTopicID(t *testing.T, doc cfnTemplate) string {
	t.Helper()
	return topicID(t, doc, "ses-events")
}

// topicID is the logical id of the one SNS topic named <stack>-name.
func topicID(t *testing.T, doc cfnTemplate, name string) string {
	t.Helper()
	var found []string
	for id, topic := range doc.ofType("AWS::SNS::Topic") {
		if topic.Properties["TopicName"] == testStackName+"-"+name {
			found = append(found, id)
		}
	}
	if len(found) != 1 {
		t.Fatalf("SNS topics named %s-%s: %v, want one", testStackName, name, found)
	}
	return found[0]
}
