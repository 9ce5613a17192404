package dashboard

import (
	"errors"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/automation"
)

// postedValues is f as the editor's form posts it.
func postedValues(f stepsForm) url.Values {
	v := url.Values{"name": {f.Name}, "event": {f.Event}, "version": {strconv.Itoa(f.Version)}}
	for i, s := range f.Steps {
		v.Set(stepPath(i, "type"), string(s.Type))
		for _, fv := range stepFields[s.Type] {
			value := s.value(fv.Name)
			if fv.Multiline { // a browser sends a textarea's line breaks as CRLF
				value = strings.ReplaceAll(value, "\n", "\r\n")
			}
			v.Set(stepPath(i, fv.Name), value)
		}
	}
	return v
}

// mustRead is the posted form f read back.
func mustRead(t *testing.T, v url.Values) stepsForm {
	t.Helper()
	f, err := readStepsForm(v)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// Every blueprint goes through the form and back unchanged, its send
// steps' html given line breaks (which a browser posts as CRLF), with the
// version the form was drawn from.
func TestStepsFormRoundTrip(t *testing.T) {
	for _, name := range automation.BlueprintNames() {
		t.Run(name, func(t *testing.T) {
			d, err := automation.Blueprint(name)
			if err != nil {
				t.Fatal(err)
			}
			for i := range d.Steps {
				if d.Steps[i].Type == automation.StepSend {
					d.Steps[i].HTML = "\n<p>Hi</p>\n<p>there</p>\n"
				}
			}
			f := mustRead(t, postedValues(formOf(d, 7)))
			back, problems := f.definition()
			if problems != nil || !reflect.DeepEqual(back, d) || f.Version != 7 {
				t.Errorf("back from the form: %+v (version %d), %v; want %+v", back, f.Version, problems, d)
			}
		})
	}
}

// A form of more steps than a definition may have is refused as read,
// and an add to a full form is refused.
func TestStepsFormTooManySteps(t *testing.T) {
	full := stepsForm{Steps: make([]stepForm, automation.MaxSteps)}
	for i := range full.Steps {
		full.Steps[i] = stepForm{Type: automation.StepWait, Duration: "1h"}
	}
	if _, err := readStepsForm(postedValues(full)); err != nil {
		t.Errorf("a full form: %v", err)
	}
	if _, err := full.apply("add:tag"); !errors.Is(err, errTooManySteps) {
		t.Errorf("an add to a full form: %v", err)
	}
	over := postedValues(full)
	over.Set(stepPath(automation.MaxSteps, "type"), "wait")
	if _, err := readStepsForm(over); !errors.Is(err, errTooManySteps) {
		t.Errorf("a form of %d steps: %v", automation.MaxSteps+1, err)
	}
}

// Tags are read as names separated by spaces or commas.
func TestStepsFormTags(t *testing.T) {
	f := mustRead(t, url.Values{"event": {" signed_up "}, "steps[0].type": {"tag"}, "steps[0].add": {"a, b\tc"}, "steps[0].remove": {" "}})
	d, problems := f.definition()
	if problems != nil || d.Event != "signed_up" || !slices.Equal(d.Steps[0].Add, []string{"a", "b", "c"}) || d.Steps[0].Remove != nil {
		t.Errorf("tags: %+v, %v", d, problems)
	}
}

func TestStepsFormApply(t *testing.T) {
	form := stepsForm{Steps: []stepForm{{Type: automation.StepWait, Duration: "1h"}, {Type: automation.StepSend, Subject: "Hi"}, {Type: automation.StepTag, Add: "x"}}}
	for op, want := range map[string]string{
		"add:send":  "wait send tag send",
		"add:wait":  "wait send tag wait",
		"add:tag":   "wait send tag tag",
		"remove:0":  "send tag",
		"remove:2":  "wait send",
		"up:1":      "send wait tag",
		"up:2":      "wait tag send",
		"down:0":    "send wait tag",
		"down:1":    "wait tag send",
		"up:0":      "error",
		"down:2":    "error",
		"remove:3":  "error",
		"remove:-1": "error",
		"up:x":      "error",
		"add:email": "error",
		"add":       "error",
		"delete:0":  "error",
		"":          "error",
	} {
		t.Run(op, func(t *testing.T) {
			got, err := form.apply(op)
			if want == "error" {
				if !errors.Is(err, errOp) || !reflect.DeepEqual(got, form) {
					t.Errorf("%q: %+v, %v; want errOp and the form unchanged", op, got, err)
				}
				return
			}
			var types []string
			for _, s := range got.Steps {
				types = append(types, string(s.Type))
			}
			if err != nil || strings.Join(types, " ") != want {
				t.Errorf("%q: %v, %v; want %s", op, types, err, want)
			}
		})
	}
	if form.Steps[0].Type != automation.StepWait || form.Steps[1].Subject != "Hi" {
		t.Errorf("apply changed the form it was called on: %+v", form.Steps)
	}
	moved, _ := form.apply("up:1")
	if moved.Steps[0].Subject != "Hi" || moved.Steps[1].Duration != "1h" {
		t.Errorf("a move loses the steps' values: %+v", moved.Steps)
	}
}

// A problem the domain reports is shown beside the control its path
// names, and listed in the summary linked to it.
func TestStepsEditorProblems(t *testing.T) {
	type placed struct{ anchor, inline string }
	form := stepsForm{Name: "Welcome", Event: "signed_up", Steps: []stepForm{
		{Type: automation.StepWait, Duration: "soon"},
		{Type: automation.StepSend, Subject: " ", HTML: "<p>Hi</p>"},
		{Type: automation.StepTag, Add: "ok Bad!"},
	}}
	_, problems := form.definition()
	for path, want := range map[string]placed{
		"steps[0].duration": {"def-steps-0-duration", "not a duration"},
		"steps[1].subject":  {"def-steps-1-subject", "is required"},
		"steps[2].add[1]":   {"def-steps-2-add", "a tag is 1 to"},
	} {
		t.Run(path, func(t *testing.T) {
			editor, summary := editorOf(form, problems)
			i := slices.IndexFunc(summary, func(p problemView) bool { return p.Path == path })
			if i < 0 || summary[i].Anchor != want.anchor || !strings.Contains(summary[i].Message, want.inline) {
				t.Fatalf("summary %+v lacks %s at #%s", summary, path, want.anchor)
			}
			var errs []string
			for _, s := range editor.Steps {
				for _, f := range s.Fields {
					if f.ID == want.anchor {
						errs = f.Errors
					}
				}
			}
			if len(errs) != 1 || !strings.Contains(errs[0], want.inline) {
				t.Errorf("the field #%s shows %q, want %q", want.anchor, errs, want.inline)
			}
		})
	}
	if len(problems) != 3 {
		t.Errorf("problems %v, want the three above", problems)
	}
}

// Paths without a field of their own land on their step, the trigger's
// fields or the steps' heading; one the editor has not (postal_address)
// is in the summary only, unlinked.
func TestStepsEditorAnchors(t *testing.T) {
	form := stepsForm{Steps: []stepForm{{Type: "email"}, {Type: automation.StepTag}}}
	problems := automation.Problems{
		{Path: "steps[0].type", Message: "a step is send, wait or tag"},
		{Path: "steps[1]", Message: "a tag step adds or removes at least one tag"},
		{Path: "steps", Message: "too many"},
		{Path: "event", Message: "is required"},
		{Path: "postal_address", Message: "none"},
		{Path: "steps[7].html", Message: "not drawn"},
	}
	editor, summary := editorOf(form, problems)
	anchors := map[string]string{}
	for _, p := range summary {
		anchors[p.Path] = p.Anchor
	}
	for path, want := range map[string]string{
		"steps[0].type": "def-steps-0", "steps[1]": "def-steps-1", "steps": "def-steps",
		"event": "def-event", "postal_address": "", "steps[7].html": "",
	} {
		if anchors[path] != want {
			t.Errorf("%s links to %q, want %q", path, anchors[path], want)
		}
	}
	if len(editor.Steps[0].Errors) != 1 || len(editor.Steps[0].Fields) != 0 || len(editor.Steps[1].Errors) != 1 ||
		len(editor.StepsErrors) != 1 || len(editor.Event.Errors) != 1 || editor.Name.Errors != nil {
		t.Errorf("inline errors misplaced: %+v", editor)
	}
}

// The page draws each step as a labelled fieldset, a field's problem
// beside it (aria-invalid, described by it), and the summary's link.
func TestStepsEditorPage(t *testing.T) {
	p, err := parsePages()
	if err != nil {
		t.Fatal(err)
	}
	form := stepsForm{Name: "N", Event: "e", Version: 4, Steps: []stepForm{{Type: automation.StepSend, Subject: "Hi"}, {Type: automation.StepWait, Duration: "soon"}, {Type: automation.StepTag, Remove: "x"}}}
	_, problems := form.definition()
	d := automationData{View: automation.View{ID: "a1", Version: 4}, Error: notSaved}
	d.Editor, d.Problems = editorOf(form, problems)
	b, err := (&App{pages: p, base: "/dashboard"}).page(nil, "automation.html", "N", "/automations", d)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{
		`<legend>Step 1: send</legend>`, `<legend>Step 2: wait</legend>`,
		`<label for="def-steps-0-subject">Subject</label>`, `name="steps[0].subject" value="Hi"`,
		`<input id="def-steps-1-duration" name="steps[1].duration" value="soon" size="60" aria-invalid="true" aria-describedby="def-steps-1-duration-error">`,
		`<p class="field-error" id="def-steps-1-duration-error">&#34;soon&#34; is not a duration`,
		`<a href="#def-steps-1-duration"><code>steps[1].duration</code></a>`,
		`id="def-steps-0-html" name="steps[0].html"`, `aria-describedby="def-steps-0-html-error"`,
		`name="version" value="4"`, `value="up:1" id="def-steps-1-op-up" formaction="/dashboard/automations/a1/steps#def-steps-0">Move step 2 up`,
		`value="remove:0" id="def-steps-0-op-remove" formaction="/dashboard/automations/a1/steps#def-steps">`,
		`value="add:tag" id="add-tag" formaction="/dashboard/automations/a1/steps#def-steps-3">Add a tag step`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	ids := map[string]int{}
	for _, m := range regexp.MustCompile(` id="([^"]+)"`).FindAllStringSubmatch(page, -1) {
		if ids[m[1]]++; ids[m[1]] == 2 {
			t.Errorf("id %q is on two elements", m[1])
		}
	}
	for _, absent := range []string{`id="def-steps-0-op-up"`, `id="def-steps-2-op-down"`} {
		if strings.Contains(page, absent) {
			t.Errorf("the page has %s", absent)
		}
	}
	if i, j := strings.Index(page, `id="save-steps-top"`), strings.Index(page, `id="def-steps-0-op-remove"`); i < 0 || j < 0 || i > j {
		t.Error("Save is not the editor's first button (Enter in a field presses the first)")
	}
}

func TestAnchorOf(t *testing.T) {
	for path, want := range map[string]string{
		"name": "def-name", "steps": "def-steps", "postal_address": "def-postal_address",
		"steps[3]": "def-steps-3", "steps[3].type": "def-steps-3", "steps[12].duration": "def-steps-12-duration",
		"steps[0].remove[4]": "def-steps-0-remove", "steps[x].html": "def-steps[x].html", "steps[]": "def-steps[]", "steps[1": "def-steps[1",
	} {
		if got := anchorOf(path); got != want {
			t.Errorf("anchorOf(%q) = %q, want %q", path, got, want)
		}
	}
}
