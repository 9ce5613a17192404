package automation

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// valid is a definition Check and CheckActivation accept.
func valid() Definition {
	return Definition{Name: "Welcome", Event: "signed_up", Steps: []Step{
		{Type: StepSend, Subject: `Hi {{ contact.first_name | "there" }}`, HTML: `<p>{{ event.plan | "Welcome" }}</p>`},
		{Type: StepWait, Duration: Duration(MinWait)},
		{Type: StepTag, Add: []string{"welcomed"}, Remove: []string{"new"}},
		{Type: StepWait, Duration: Duration(MaxWait)},
	}}
}

func TestCheckDefinition(t *testing.T) {
	if p := valid().Check(); len(p) > 0 {
		t.Fatalf("valid definition refused: %v", p)
	}
	tests := map[string]struct {
		change func(d *Definition)
		path   string // the problem's path
		says   string // part of its message
	}{
		"no name":               {func(d *Definition) { d.Name = " " }, "name", "required"},
		"long name":             {func(d *Definition) { d.Name = strings.Repeat("é", MaxName+1) }, "name", "at most 100"},
		"event with spaces":     {func(d *Definition) { d.Event = "Cart Abandoned" }, "event", "no spaces"},
		"event uppercase":       {func(d *Definition) { d.Event = "CART_ABANDONED" }, "event", `"cart_abandoned"`},
		"no steps":              {func(d *Definition) { d.Steps = nil }, "steps", "at least one"},
		"21 steps":              {func(d *Definition) { d.Steps = make([]Step, 21); fill(d.Steps) }, "steps", "at most 20"},
		"unknown type":          {func(d *Definition) { d.Steps[0].Type = "sms" }, "steps[0].type", "send, wait or tag"},
		"send without subject":  {func(d *Definition) { d.Steps[0].Subject = "" }, "steps[0].subject", "required"},
		"subject line break":    {func(d *Definition) { d.Steps[0].Subject = "a\nb" }, "steps[0].subject", "line breaks"},
		"send without html":     {func(d *Definition) { d.Steps[0].HTML = "" }, "steps[0].html", "required"},
		"html over 256 KB":      {func(d *Definition) { d.Steps[0].HTML = strings.Repeat("a", MaxHTMLBytes+1) }, "steps[0].html", "at most 262144"},
		"send with duration":    {func(d *Definition) { d.Steps[0].Duration = Duration(time.Hour) }, "steps[0]", "only its own fields"},
		"wait under 1m":         {func(d *Definition) { d.Steps[1].Duration = Duration(59 * time.Second) }, "steps[1].duration", "1m to 90d"},
		"wait missing":          {func(d *Definition) { d.Steps[1].Duration = 0 }, "steps[1].duration", "1m to 90d"},
		"wait over 90d":         {func(d *Definition) { d.Steps[3].Duration = Duration(MaxWait + time.Minute) }, "steps[3].duration", "1m to 90d"},
		"wait with tags":        {func(d *Definition) { d.Steps[1].Add = []string{"x"} }, "steps[1]", "only its own fields"},
		"tag nothing":           {func(d *Definition) { d.Steps[2].Add, d.Steps[2].Remove = nil, nil }, "steps[2]", "at least one tag"},
		"bad tag":               {func(d *Definition) { d.Steps[2].Remove = []string{"VIP"} }, "steps[2].remove[0]", `not "VIP"`},
		"tag added and removed": {func(d *Definition) { d.Steps[2].Remove = []string{"welcomed"} }, "steps[2]", "both added and removed"},
		"21 tags": {func(d *Definition) {
			for i := range 21 {
				d.Steps[2].Add = append(d.Steps[2].Add, "t"+strings.Repeat("x", i))
			}
		}, "steps[2]", "at most 20 tags"},
		"steps over 350 KB": {func(d *Definition) {
			d.Steps = nil
			for range 2 {
				d.Steps = append(d.Steps, Step{Type: StepSend, Subject: "s", HTML: strings.Repeat("a", 200<<10)})
			}
		}, "steps", "together at most"},
	}
	for name, tt := range tests {
		d := valid()
		d.Steps = append([]Step(nil), d.Steps...)
		tt.change(&d)
		if !hasProblem(d.Check(), tt.path, tt.says) {
			t.Errorf("%s: problems %v, want one at %s saying %q", name, d.Check(), tt.path, tt.says)
		}
	}
}

func fill(steps []Step) {
	for i := range steps {
		steps[i] = Step{Type: StepTag, Add: []string{"a"}}
	}
}

func hasProblem(p Problems, path, says string) bool {
	for _, x := range p {
		if x.Path == path && strings.Contains(x.Message, says) {
			return true
		}
	}
	return false
}

func TestCheckActivation(t *testing.T) {
	if p := valid().CheckActivation(); len(p) > 0 {
		t.Fatalf("valid definition refused: %v", p)
	}
	d := valid()
	d.Event = "Cart Abandoned"
	d.Steps = []Step{
		{Type: StepSend, Subject: `Your {{ event.product_name }}`, HTML: `<p>{{ contact.first_name }} {{ contact.email }}</p>`},
		{Type: StepSend, Subject: `ok`, HTML: `{{ order.id | "x" }}`},
	}
	p := d.CheckActivation()
	for _, want := range []struct{ path, says string }{
		{"event", "no spaces"},
		{"steps[0].subject", "event.product_name }} has no fallback"},
		{"steps[0].html", "contact.first_name }} has no fallback"},
		{"steps[1].html", `unknown variable "order.id"`},
	} {
		if !hasProblem(p, want.path, want.says) {
			t.Errorf("problems %v lack one at %s saying %q", p, want.path, want.says)
		}
	}
	// The draft check alone accepts the content: a draft may be unfinished.
	d.Event = "cart"
	if p := d.Check(); len(p) > 0 {
		t.Errorf("Check refused draft content: %v", p)
	}
}

func TestParseDefinition(t *testing.T) {
	b, err := json.Marshal(valid())
	if err != nil {
		t.Fatal(err)
	}
	d, err := ParseDefinition(b)
	if err != nil || len(d.Steps) != 4 || d.Steps[3].Duration != Duration(MaxWait) || d.Steps[2].Remove[0] != "new" {
		t.Fatalf("ParseDefinition = %+v, %v", d, err)
	}
	for name, in := range map[string]string{
		"unknown field":   `{"name":"a","event":"e","steps":[],"trigger":"x"}`,
		"bad duration":    `{"name":"a","event":"e","steps":[{"type":"wait","duration":"1 hour"}]}`,
		"two values":      `{"name":"a"} {}`,
		"not an object":   `[1]`,
		"unknown in step": `{"name":"a","event":"e","steps":[{"type":"send","body":"x"}]}`,
	} {
		if _, err := ParseDefinition([]byte(in)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
