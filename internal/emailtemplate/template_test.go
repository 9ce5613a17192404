package emailtemplate

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/fail"
)

func ptr(s string) *string { return &s }

func TestInputCheck(t *testing.T) {
	cases := map[string]struct {
		in     Input
		create bool
		kind   fail.Kind // KindInternal: accepted
		param  string
	}{
		"create, all fields":        {in: Input{Name: ptr("n"), Subject: ptr("s"), HTML: ptr("<p>{{ data.x }}</p>")}, create: true},
		"create without name":       {in: Input{Subject: ptr("s"), HTML: ptr("<p>x</p>")}, create: true, kind: fail.KindMissing, param: "name"},
		"create without html":       {in: Input{Name: ptr("n"), Subject: ptr("s")}, create: true, kind: fail.KindMissing, param: "html"},
		"patch, nothing":            {in: Input{}, kind: fail.KindInvalid},
		"patch, a name":             {in: Input{Name: ptr("renamed")}},
		"name of spaces":            {in: Input{Name: ptr("   ")}, kind: fail.KindInvalid, param: "name"},
		"name too long":             {in: Input{Name: ptr(strings.Repeat("é", MaxName+1))}, kind: fail.KindInvalid, param: "name"},
		"subject empty":             {in: Input{Subject: ptr("")}, kind: fail.KindInvalid, param: "subject"},
		"subject line break":        {in: Input{Subject: ptr("a\nb")}, kind: fail.KindInvalid, param: "subject"},
		"contact without fallback":  {in: Input{Subject: ptr("Hi {{ contact.first_name }}")}, kind: fail.KindInvalid, param: "subject"},
		"contact with fallback":     {in: Input{Subject: ptr(`Hi {{ contact.first_name | "there" }}`)}},
		"contact email needs none":  {in: Input{HTML: ptr("<p>{{ contact.email }}</p>")}},
		"event variable":            {in: Input{HTML: ptr("<p>{{ event.total }}</p>")}, kind: fail.KindInvalid, param: "html"},
		"never closed":              {in: Input{HTML: ptr("<p>{{ data.x</p>")}, kind: fail.KindInvalid, param: "html"},
		"html blank":                {in: Input{HTML: ptr(" \n")}, kind: fail.KindInvalid, param: "html"},
		"html too large":            {in: Input{HTML: ptr(strings.Repeat("a", MaxHTML+1))}, kind: fail.KindTooLarge, param: "html"},
		"html not UTF-8":            {in: Input{HTML: ptr("<p>\xff</p>")}, kind: fail.KindInvalid, param: "html"},
		"data variable, no default": {in: Input{HTML: ptr("<p>{{ data.code }}</p>")}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			err := c.in.check(c.create)
			if c.kind == fail.KindInternal {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			fe, ok := fail.As(err)
			if !ok || fe.Kind != c.kind || fe.Param != c.param {
				t.Fatalf("err = %#v, want kind %v param %q", err, c.kind, c.param)
			}
		})
	}
}

func TestCheckVariables(t *testing.T) {
	cases := map[string]struct {
		vars  map[string]string
		param string // "" accepted
	}{
		"none":          {},
		"some":          {vars: map[string]string{"order": "A-1", "total_2": "x"}},
		"key with dot":  {vars: map[string]string{"a.b": "x"}, param: "variables.a.b"},
		"empty key":     {vars: map[string]string{"": "x"}, param: "variables."},
		"value too big": {vars: map[string]string{"v": strings.Repeat("x", MaxVariableValue+1)}, param: "variables.v"},
		"bad UTF-8":     {vars: map[string]string{"v": "\xff"}, param: "variables.v"},
	}
	many := map[string]string{}
	for i := range MaxVariables + 1 {
		many["k"+strings.Repeat("x", i)] = "v"
	}
	cases["too many"] = struct {
		vars  map[string]string
		param string
	}{vars: many, param: "variables"}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			err := CheckVariables(c.vars)
			if c.param == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if fe, ok := fail.As(err); !ok || fe.Kind != fail.KindInvalid || fe.Param != c.param {
				t.Fatalf("err = %v, want invalid %q", err, c.param)
			}
		})
	}
}

func TestVariables(t *testing.T) {
	tpl := Template{Subject: `Order {{ data.order }}`, HTML: `<p>{{ data.total }} {{ data.order }} {{ data.note | "" }} {{ contact.email }}</p>`}
	if got := tpl.Variables(); !slices.Equal(got, []string{"note", "order", "total"}) {
		t.Errorf("Variables() = %v", got)
	}
	if got := (Template{Subject: "s", HTML: "<p>x</p>"}).Variables(); got == nil || len(got) != 0 {
		t.Errorf("Variables() of none = %#v, want an empty list", got)
	}
}

// fakeStore holds templates by id.
type fakeStore struct {
	Store
	templates map[string]Template
}

func (f fakeStore) GetTemplate(_ context.Context, ws, id string, _ int) (Template, error) {
	t, ok := f.templates[id]
	if !ok || t.WorkspaceID != ws {
		return Template{}, fail.NotFound("template")
	}
	return t, nil
}

type fakeContacts map[string]contact.Contact

func (f fakeContacts) GetContactByEmail(_ context.Context, _, email string) (contact.Contact, error) {
	c, ok := f[email]
	if !ok {
		return contact.Contact{}, contact.ErrNotFound
	}
	return c, nil
}

func TestRender(t *testing.T) {
	ann := "Ann"
	s := &Service{
		Store: fakeStore{templates: map[string]Template{
			"t1": {ID: "t1", WorkspaceID: "ws", Version: 3,
				Subject: `Order {{ data.order }} for {{ contact.first_name | "you" }}`,
				HTML:    `<p>{{ data.total }} {{ data.note | "no note" }}</p>`},
			"bare": {ID: "bare", WorkspaceID: "ws", Version: 1, Subject: `{{ data.s | "" }}`, HTML: "<p>x</p>"},
		}},
		Contacts: fakeContacts{"ann@example.org": {Email: "ann@example.org", FirstName: &ann}},
	}
	ctx := context.Background()
	got, err := s.Render(ctx, "ws", "t1", "ann@example.org", map[string]string{"order": "A\r\n1", "total": "<b>5</b>"})
	if err != nil {
		t.Fatal(err)
	}
	want := Rendered{Subject: "Order A  1 for Ann", HTML: "<p>&lt;b&gt;5&lt;/b&gt; no note</p>", Version: 3}
	if got != want {
		t.Errorf("Render = %+v, want %+v", got, want)
	}
	if got, _ := s.Render(ctx, "ws", "t1", "bob@example.org", map[string]string{"order": "B", "total": "1"}); got.Subject != "Order B for you" {
		t.Errorf("a recipient who is no contact: subject %q", got.Subject)
	}
	refusals := map[string]struct {
		ws, id string
		vars   map[string]string
		param  string
	}{
		"missing variable":      {ws: "ws", id: "t1", vars: map[string]string{"order": "A"}, param: "variables.total"},
		"another workspace's":   {ws: "other", id: "t1", vars: map[string]string{"order": "A", "total": "1"}, param: "template_id"},
		"unknown template":      {ws: "ws", id: "t2", param: "template_id"},
		"subject renders empty": {ws: "ws", id: "bare", vars: map[string]string{"s": " "}, param: "variables"},
	}
	for name, c := range refusals {
		_, err := s.Render(ctx, c.ws, c.id, "ann@example.org", c.vars)
		if fe, ok := fail.As(err); !ok || fe.Kind != fail.KindInvalid || fe.Param != c.param {
			t.Errorf("%s: err = %v, want invalid %q", name, err, c.param)
		}
	}
}
