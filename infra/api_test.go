package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"

	"github.com/sesame-mail/sesame/internal/routes"
)

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

// A site is one function behind ANY on its prefix and everything under it.
func TestSiteMethods(t *testing.T) {
	s := synth(t)
	paths := resourcePaths(s.doc)
	ids := functionIDs(t, s.doc)
	for _, site := range routes.Sites {
		for _, path := range []string{site.Prefix, site.Prefix + "/{proxy+}"} {
			var found []string
			for _, m := range s.doc.ofType("AWS::ApiGateway::Method") {
				if paths[refTarget(m.Properties["ResourceId"])] != path {
					continue
				}
				integ, _ := m.Properties["Integration"].(map[string]any)
				found = append(found, fmt.Sprint(m.Properties["HttpMethod"], " ", getAttTargets(integ["Uri"], "Arn")))
			}
			if want := fmt.Sprint("ANY ", []string{ids[site.Function]}); len(found) != 1 || found[0] != want {
				t.Errorf("%s: methods %v, want %s", path, found, want)
			}
		}
	}
}

func TestMethodPerRoute(t *testing.T) {
	s := synth(t)
	paths := resourcePaths(s.doc)
	methods := s.doc.ofType("AWS::ApiGateway::Method")
	fns := s.doc.routeFunctions()
	distinct := map[string]bool{}
	for _, r := range routes.All() {
		distinct[r.Path] = true
	}
	siteMethods := 0
	for _, site := range routes.Sites {
		siteMethods += 2 + len(site.Also)
	}
	if len(methods) != len(routes.All())+len(distinct)+siteMethods {
		t.Errorf("%d methods, want one per route (%d), an ANY per path (%d) and two per site plus its other paths", len(methods), len(routes.All()), len(distinct))
	}
	descriptions := map[string]string{} // function → its description
	for _, f := range routes.RouteFunctions() {
		descriptions[f.Name] = f.Description()
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
	for _, r := range routes.All() {
		segs := strings.Split(strings.TrimPrefix(r.Path, "/"), "/")
		for i := range segs {
			prefixes["/"+strings.Join(segs[:i+1], "/")] = true
		}
	}
	for _, site := range routes.Sites {
		prefixes[site.Prefix], prefixes[site.Prefix+"/{proxy+}"] = true, true
		for _, p := range site.Also {
			segs := strings.Split(strings.TrimPrefix(p, "/"), "/")
			for i := range segs {
				prefixes["/"+strings.Join(segs[:i+1], "/")] = true
			}
		}
	}
	if len(paths) != len(prefixes) {
		t.Errorf("%d API resources, want %d (one per distinct prefix)", len(paths), len(prefixes))
	}

	for _, r := range routes.All() {
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
			if want := descriptions[r.Function]; desc != want {
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
	// Trimmed to what the functions' request line cannot say (the client's
	// address, API Gateway's own status and error), with the request id
	// that line carries too.
	want := map[string]string{
		"requestId": "$context.requestId", "ip": "$context.identity.sourceIp",
		"status": "$context.status", "error": "$context.error.message",
	}
	if !maps.Equal(format, want) {
		t.Errorf("access log format %v, want %v", format, want)
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

// Each route function has one invoke permission, whatever the number of
// methods it serves, limited to this API; queue consumers have none.
func TestOneInvokePermissionPerRouteFunction(t *testing.T) {
	s := synth(t)
	apiID := onlyID(t, s.doc, "AWS::ApiGateway::RestApi")
	wantSource := "arn:${AWS::Partition}:execute-api:${AWS::Region}:${AWS::AccountId}:${" + apiID + "}/*/*/*"
	perFunction := map[string]int{}
	for id, p := range s.doc.ofType("AWS::Lambda::Permission") {
		props := p.Properties
		fn := getAttTarget(props["FunctionName"], "Arn")
		if props["Principal"] == "events.amazonaws.com" {
			continue // a schedule's (TestCampaignTickSchedule)
		}
		perFunction[fn]++
		if props["Action"] != "lambda:InvokeFunction" || props["Principal"] != "apigateway.amazonaws.com" {
			t.Errorf("%s: %v by %v, want lambda:InvokeFunction by apigateway.amazonaws.com", id, props["Action"], props["Principal"])
		}
		if got := render(props["SourceArn"]); got != wantSource {
			t.Errorf("%s: SourceArn %s, want %s", id, got, wantSource)
		}
	}
	ids := functionIDs(t, s.doc)
	for _, f := range routes.RouteFunctions() {
		if n := perFunction[ids[f.Name]]; n != 1 {
			t.Errorf("%s: %d invoke permissions, want 1", f.Name, n)
		}
	}
	for _, c := range routes.Consumers {
		if n := perFunction[ids[c.Function]]; n != 0 {
			t.Errorf("%s: %d invoke permissions, want none (a queue consumer)", c.Function, n)
		}
	}
}

// The public URL, the base of unsubscribe links, is the stage's URL built
// from the RestApi alone (no Stage or Deployment, which depend on every
// function: a function given it would depend on itself), or the custom
// domain given as context.
func TestPublicURL(t *testing.T) {
	s := synth(t)
	apiID := onlyID(t, s.doc, "AWS::ApiGateway::RestApi")
	out, _ := s.doc.Outputs["PublicUrl"].(map[string]any)
	want := "https://${" + apiID + "}.execute-api.${AWS::Region}.${AWS::URLSuffix}/" + stageName
	if got := render(out["Value"]); got != want {
		t.Errorf("PublicUrl = %s, want %s", got, want)
	}
	custom := synthWith(t, "public-url", map[string]any{contextPublicURL: "https://mail.example.com"})
	out, _ = custom.doc.Outputs["PublicUrl"].(map[string]any)
	if out["Value"] != "https://mail.example.com" {
		t.Errorf("with -c publicUrl: PublicUrl = %v", out["Value"])
	}
}
