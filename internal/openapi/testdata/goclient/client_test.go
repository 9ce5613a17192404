// Compiled and run by TestGoClient beside the client oapi-codegen generates
// from the document, and report.json and rules.json that Sesame's own code
// wrote.
package sesame

import (
	"encoding/json"
	"os"
	"testing"
)

// Sesame's answer to a bad email, and every rule it has, read into the
// generated types: each finding's id and severity is one the client knows.
func TestReadsTheDeliverabilityReport(t *testing.T) {
	var report DeliverabilityReport
	read(t, "report.json", &report)
	var rules []DeliverabilityFinding
	read(t, "rules.json", &rules)
	if len(report.Checks) == 0 || len(rules) == 0 {
		t.Fatalf("%d findings and %d rules: nothing to check", len(report.Checks), len(rules))
	}
	if !report.Verdict.Valid() {
		t.Errorf("verdict %q is not one the client knows", report.Verdict)
	}
	for _, f := range append(report.Checks, rules...) {
		if !f.Id.Valid() || !f.Severity.Valid() {
			t.Errorf("finding %q (%q) is not one the client knows", f.Id, f.Severity)
		}
	}
}

// A segment filter's value is a string, a number, a boolean or a list of
// them, and the client reads and writes each.
func TestFilterConditionValue(t *testing.T) {
	var c FilterCondition
	if err := json.Unmarshal([]byte(`{"field":"properties.plan","op":"in","value":["pro",2.5,true]}`), &c); err != nil {
		t.Fatal(err)
	}
	if c.Value == nil {
		t.Fatal("no value")
	}
	list, err := c.Value.AsFilterConditionValue1()
	if err != nil || len(list) != 3 {
		t.Fatalf("list %v, err %v", list, err)
	}
	s, errS := list[0].AsPropertyValue0()
	n, errN := list[1].AsPropertyValue1()
	b, errB := list[2].AsPropertyValue2()
	if s != "pro" || n != 2.5 || !b || errS != nil || errN != nil || errB != nil {
		t.Errorf("read %q %v %v (errors %v %v %v), want pro 2.5 true", s, n, b, errS, errN, errB)
	}

	var one PropertyValue
	if err := one.FromPropertyValue1(1e15 + 1); err != nil {
		t.Fatal(err)
	}
	var v FilterCondition_Value
	if err := v.FromPropertyValue(one); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(FilterCondition{Field: "properties.seats", Op: Gte, Value: &v})
	if want := `{"field":"properties.seats","op":"gte","value":1000000000000001}`; err != nil || string(out) != want {
		t.Errorf("wrote %s (err %v), want %s", out, err, want)
	}
}

// The webhooks' headers have their types: the components only webhooks
// use are kept.
func TestWebhookHeaders(t *testing.T) {
	p := OnEmailBouncedParams{XServiceSignature: WebhookSignature("t=1,v1=00"), XServiceEventId: WebhookEventID("e"), XServiceEventType: OnEmailBouncedParamsXServiceEventTypeEmailBounced}
	if p.XServiceEventType != "email.bounced" {
		t.Errorf("event type %q", p.XServiceEventType)
	}
}

func read(t *testing.T, name string, v any) {
	t.Helper()
	raw, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}
