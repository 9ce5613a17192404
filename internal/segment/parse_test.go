package segment_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/segment"
)

// conditions is n conditions as JSON array members.
func conditions(n int) string {
	c := make([]string, n)
	for i := range c {
		c[i] = fmt.Sprintf(`{"field":"email","op":"ends_with","value":"@%d.test"}`, i)
	}
	return strings.Join(c, ",")
}

// Every refusal is invalid_field (fail.KindInvalid) with the path of the
// part at fault.
func TestParseRefusesWithParamPath(t *testing.T) {
	cond := `{"field":"email","op":"eq","value":"a@b.test"}`
	tests := map[string]struct{ filter, param string }{
		"not JSON":                  {`{"all":`, "filter"},
		"an array":                  {`[1]`, "filter"},
		"a string":                  {`"x"`, "filter"},
		"a condition at the root":   {cond, "filter"},
		"an empty object":           {`{}`, "filter"},
		"two group keys":            {`{"all":[` + cond + `],"any":[` + cond + `]}`, "filter.any"},
		"a group with a field key":  {`{"all":[` + cond + `],"field":"email"}`, "filter.field"},
		"all empty":                 {`{"all":[]}`, "filter.all"},
		"all null":                  {`{"all":null}`, "filter.all"},
		"all an object":             {`{"all":` + cond + `}`, "filter.all"},
		"not an array":              {`{"not":[` + cond + `]}`, "filter.not"},
		"member a number":           {`{"any":[` + cond + `,3]}`, "filter.any[1]"},
		"member an empty object":    {`{"any":[{}]}`, "filter.any[0]"},
		"4 deep":                    {`{"all":[{"any":[{"not":{"all":[` + cond + `]}}]}]}`, "filter.all[0].any[0].not"},
		"21 conditions":             {`{"all":[` + conditions(21) + `]}`, "filter.all[20]"},
		"21 conditions nested":      {`{"all":[` + conditions(15) + `,{"any":[` + conditions(6) + `]}]}`, "filter.all[15].any[5]"},
		"unknown key in condition":  {`{"all":[{"field":"email","op":"eq","value":"a@b.test","case":"x"}]}`, "filter.all[0].case"},
		"field absent":              {`{"all":[{"op":"eq","value":"x"}]}`, "filter.all[0].field"},
		"field a number":            {`{"all":[{"field":1,"op":"eq","value":"x"}]}`, "filter.all[0].field"},
		"unknown field":             {`{"all":[{"field":"phone","op":"eq","value":"x"}]}`, "filter.all[0].field"},
		"field properties alone":    {`{"all":[{"field":"properties","op":"exists"}]}`, "filter.all[0].field"},
		"property key empty":        {`{"all":[{"field":"properties.","op":"exists"}]}`, "filter.all[0].field"},
		"property key with a dot":   {`{"all":[{"field":"properties.a.b","op":"exists"}]}`, "filter.all[0].field"},
		"property key upper case":   {`{"all":[{"field":"properties.Plan","op":"exists"}]}`, "filter.all[0].field"},
		"field in upper case":       {`{"all":[{"field":"Email","op":"eq","value":"x"}]}`, "filter.all[0].field"},
		"op absent":                 {`{"all":[{"field":"email","value":"x"}]}`, "filter.all[0].op"},
		"unknown op":                {`{"all":[{"field":"email","op":"like","value":"x"}]}`, "filter.all[0].op"},
		"gt on tags":                {`{"all":[` + cond + `,{"field":"tags","op":"gt","value":"vip"}]}`, "filter.all[1].op"},
		"contains on tags":          {`{"all":[{"field":"tags","op":"contains","value":"vip"}]}`, "filter.all[0].op"},
		"exists on email":           {`{"all":[{"field":"email","op":"exists"}]}`, "filter.all[0].op"},
		"gt on email":               {`{"all":[{"field":"email","op":"gt","value":"a"}]}`, "filter.all[0].op"},
		"within_days on a property": {`{"all":[{"field":"properties.since","op":"within_days","value":3}]}`, "filter.all[0].op"},
		"eq on created_at":          {`{"all":[{"field":"created_at","op":"eq","value":"2026-01-01T00:00:00Z"}]}`, "filter.all[0].op"},
		"contains on subscribed":    {`{"all":[{"field":"subscribed","op":"contains","value":"t"}]}`, "filter.all[0].op"},
		"has_tag on a name":         {`{"all":[{"field":"first_name","op":"has_tag","value":"vip"}]}`, "filter.all[0].op"},
		"value absent":              {`{"all":[{"field":"email","op":"eq"}]}`, "filter.all[0].value"},
		"value null":                {`{"all":[{"field":"email","op":"eq","value":null}]}`, "filter.all[0].value"},
		"value empty string":        {`{"all":[{"field":"first_name","op":"contains","value":""}]}`, "filter.all[0].value"},
		"value 1001 characters":     {`{"all":[{"field":"first_name","op":"eq","value":"` + strings.Repeat("é", 1001) + `"}]}`, "filter.all[0].value"},
		"value a number on email":   {`{"all":[{"field":"email","op":"eq","value":1}]}`, "filter.all[0].value"},
		"subscribed eq a string":    {`{"all":[{"field":"subscribed","op":"eq","value":"true"}]}`, "filter.all[0].value"},
		"exists with a value":       {`{"all":[{"field":"tags","op":"exists","value":"vip"}]}`, "filter.all[0].value"},
		"has_tag upper case":        {`{"all":[{"field":"tags","op":"has_tag","value":"VIP"}]}`, "filter.all[0].value"},
		"has_tag with a space":      {`{"all":[{"field":"tags","op":"has_tag","value":"a b"}]}`, "filter.all[0].value"},
		"has_tag a number":          {`{"all":[{"field":"tags","op":"has_tag","value":1}]}`, "filter.all[0].value"},
		"gt a string on a property": {`{"all":[{"field":"properties.age","op":"gt","value":"30"}]}`, "filter.all[0].value"},
		"eq an object":              {`{"all":[{"field":"properties.plan","op":"eq","value":{"a":1}}]}`, "filter.all[0].value"},
		"eq an array":               {`{"all":[{"field":"properties.plan","op":"eq","value":["pro"]}]}`, "filter.all[0].value"},
		"in not an array":           {`{"all":[{"field":"email","op":"in","value":"a@b.test"}]}`, "filter.all[0].value"},
		"in empty":                  {`{"all":[{"field":"email","op":"in","value":[]}]}`, "filter.all[0].value"},
		"in 101 values":             {`{"all":[{"field":"properties.n","op":"in","value":[` + strings.Repeat("1,", 100) + `1]}]}`, "filter.all[0].value"},
		"in a number on email":      {`{"all":[{"field":"email","op":"in","value":["a@b.test",2]}]}`, "filter.all[0].value[1]"},
		"in a null on a property":   {`{"all":[{"field":"properties.plan","op":"in","value":["pro",null]}]}`, "filter.all[0].value[1]"},
		"created_at not RFC 3339":   {`{"all":[{"field":"created_at","op":"gt","value":"2026-01-01"}]}`, "filter.all[0].value"},
		"created_at a number":       {`{"all":[{"field":"created_at","op":"lt","value":1700000000}]}`, "filter.all[0].value"},
		"within_days 0":             {`{"all":[{"field":"created_at","op":"within_days","value":0}]}`, "filter.all[0].value"},
		"within_days a fraction":    {`{"all":[{"field":"created_at","op":"within_days","value":1.5}]}`, "filter.all[0].value"},
		"older_than_days too many":  {`{"all":[{"field":"created_at","op":"older_than_days","value":36501}]}`, "filter.all[0].value"},
		"within_days a string":      {`{"all":[{"field":"created_at","op":"within_days","value":"7"}]}`, "filter.all[0].value"},
		"the issue's example path":  {`{"any":[{"not":{"field":"email","op":"eq","value":2}}]}`, "filter.any[0].not.value"},
		"third member's op":         {`{"all":[` + cond + `,` + cond + `,{"field":"email","op":"has_tag","value":"x"}]}`, "filter.all[2].op"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := segment.Parse(json.RawMessage(tc.filter))
			e, ok := fail.As(err)
			if !ok || e.Kind != fail.KindInvalid {
				t.Fatalf("Parse(%s) = %v, want an invalid error", tc.filter, err)
			}
			if e.Param != tc.param {
				t.Errorf("param = %q, want %q (%s)", e.Param, tc.param, e.Message)
			}
			if e.Message == "" {
				t.Error("no message")
			}
		})
	}
}

// What the language takes: the limits exactly, every op on every field
// that takes it, and the canonical form it marshals back to.
func TestParseAccepts(t *testing.T) {
	tests := map[string]struct{ filter, canonical string }{
		"3 deep": {
			`{"all":[{"any":[{"not":{"field":"email","op":"eq","value":"a@b.test"}}]}]}`, "",
		},
		"20 conditions":    {`{"all":[` + conditions(20) + `]}`, ""},
		"a not at root":    {`{"not":{"field":"tags","op":"has_tag","value":"churned"}}`, ""},
		"exists, no value": {`{"all":[{"field":"first_name","op":"exists"}]}`, ""},
		"exists, value null": {
			`{"all":[{"field":"first_name","op":"exists","value":null}]}`,
			`{"all":[{"field":"first_name","op":"exists"}]}`,
		},
		"key order and spaces": {
			`{ "all" : [ {"value": "Pro", "op": "eq", "field": "properties.plan"} ] }`,
			`{"all":[{"field":"properties.plan","op":"eq","value":"Pro"}]}`,
		},
		"scalars of each type": {
			`{"any":[{"field":"properties.plan","op":"in","value":["pro",2,true]},{"field":"properties.n","op":"gte","value":1.5}]}`, "",
		},
		"created_at with an offset": {
			`{"all":[{"field":"created_at","op":"gte","value":"2026-01-31T09:00:00+02:00"}]}`, "",
		},
		"days": {
			`{"all":[{"field":"created_at","op":"within_days","value":7},{"field":"created_at","op":"older_than_days","value":36500}]}`, "",
		},
		"subscribed": {`{"all":[{"field":"subscribed","op":"neq","value":false}]}`, ""},
		"tags":       {`{"any":[{"field":"tags","op":"has_tag","value":"beta-2_x"},{"field":"tags","op":"not_exists"}]}`, ""},
		"text ops": {
			`{"all":[{"field":"email","op":"ends_with","value":"@acme.test"},{"field":"last_name","op":"starts_with","value":"Mc"},{"field":"first_name","op":"in","value":["Ann","Bob"]}]}`, "",
		},
		"a 1000-character value": {`{"all":[{"field":"first_name","op":"contains","value":"` + strings.Repeat("é", 1000) + `"}]}`, ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			f, err := segment.Parse(json.RawMessage(tc.filter))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			want := tc.canonical
			if want == "" {
				want = tc.filter
			}
			got, err := json.Marshal(f)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != want {
				t.Errorf("marshalled\n got %s\nwant %s", got, want)
			}
			again, err := segment.Parse(got)
			if err != nil {
				t.Fatalf("the canonical form does not parse: %v", err)
			}
			if back, _ := json.Marshal(again); string(back) != string(got) {
				t.Errorf("canonical form not stable: %s then %s", got, back)
			}
		})
	}
}

// A refusal lists what would have been taken, so a client can fix it.
func TestParseRefusalSaysWhatIsTaken(t *testing.T) {
	_, err := segment.Parse(json.RawMessage(`{"all":[{"field":"tags","op":"gt","value":"vip"}]}`))
	e, _ := fail.As(err)
	if e == nil || !strings.Contains(e.Message, "exists, not_exists, has_tag") {
		t.Errorf("message %v does not list the ops tags takes", err)
	}
}
