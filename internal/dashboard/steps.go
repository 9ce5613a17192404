package dashboard

// The automation page's step editor: the definition as a form, one
// fieldset per step, changed by the form's own submit buttons (add,
// remove, move: op) without a script of ours, and written as a new
// version only by Save, through the owner service. Its field names are
// the definition's paths (steps[2].duration), so a problem the domain
// reports is shown beside the field it names.

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/sesame-mail/sesame/internal/automation"
)

// stepsForm is the definition as the owner typed it: text, so that a
// refused value is shown back as typed.
type stepsForm struct {
	Name, Event string
	Steps       []stepForm
	// Version is the version the form was drawn from: a save checks it,
	// so a form kept open does not undo a version saved meanwhile.
	Version int
}

// stepForm is one step; only its Type's fields are used.
type stepForm struct {
	Type                    automation.StepType
	Subject, HTML, SenderID string // send
	Duration                string // wait
	Add, Remove             string // tag: names separated by spaces or commas
}

// opSave writes the form as a new version; every other op changes the
// form only.
const opSave = "save"

// errOp refuses an op the editor's buttons do not send.
var errOp = errors.New("this button does not exist (any more): reload the page")

// errTooManySteps refuses a form of more steps than a definition may
// have, before it is shown again or checked.
var errTooManySteps = fmt.Errorf("an automation has at most %d steps", automation.MaxSteps)

// formOf is d, saved as version, as the editor shows it.
func formOf(d automation.Definition, version int) stepsForm {
	f := stepsForm{Name: d.Name, Event: d.Event, Steps: make([]stepForm, 0, len(d.Steps)), Version: version}
	for _, s := range d.Steps {
		sf := stepForm{Type: s.Type, Subject: s.Subject, HTML: s.HTML, SenderID: s.SenderID,
			Add: strings.Join(s.Add, " "), Remove: strings.Join(s.Remove, " ")}
		if s.Type == automation.StepWait {
			sf.Duration = s.Duration.String()
		}
		f.Steps = append(f.Steps, sf)
	}
	return f
}

// stepAnchor is the id of step i's fieldset.
func stepAnchor(i int) string { return anchorOf(fmt.Sprintf("steps[%d]", i)) }

// stepPath is the path of step i's field, its form field's name.
func stepPath(i int, field string) string { return fmt.Sprintf("steps[%d].%s", i, field) }

// readStepsForm is the posted editor: steps[0] to the last index with
// a type, in order, at most automation.MaxSteps. Browsers send a
// textarea's line breaks as CRLF: they are read back as LF, so a save
// leaves the html of steps nobody touched as it was.
func readStepsForm(v url.Values) (stepsForm, error) {
	f := stepsForm{Name: strings.TrimSpace(v.Get("name")), Event: strings.TrimSpace(v.Get("event"))}
	f.Version, _ = strconv.Atoi(v.Get("version"))
	for i := 0; v.Has(stepPath(i, "type")); i++ {
		if i == automation.MaxSteps {
			return f, errTooManySteps
		}
		get := func(field string) string { return v.Get(stepPath(i, field)) }
		f.Steps = append(f.Steps, stepForm{
			Type: automation.StepType(get("type")), Subject: get("subject"), HTML: strings.ReplaceAll(get("html"), "\r\n", "\n"),
			SenderID: strings.TrimSpace(get("sender_id")), Duration: strings.TrimSpace(get("duration")),
			Add: get("add"), Remove: get("remove"),
		})
	}
	return f, nil
}

// apply is f changed by op: "add:<type>" appends an empty step of that
// type, "remove:<i>", "up:<i>" and "down:<i>" remove or move step i.
func (f stepsForm) apply(op string) (stepsForm, error) {
	verb, arg, _ := strings.Cut(op, ":")
	steps := slices.Clone(f.Steps)
	if verb == "add" {
		t := automation.StepType(arg)
		if !slices.Contains(automation.StepTypes, t) {
			return f, errOp
		}
		if len(steps) >= automation.MaxSteps {
			return f, errTooManySteps
		}
		f.Steps = append(steps, stepForm{Type: t})
		return f, nil
	}
	i, err := strconv.Atoi(arg)
	if err != nil || i < 0 || i >= len(steps) {
		return f, errOp
	}
	switch {
	case verb == "remove":
		steps = slices.Delete(steps, i, i+1)
	case verb == "up" && i > 0:
		steps[i-1], steps[i] = steps[i], steps[i-1]
	case verb == "down" && i < len(steps)-1:
		steps[i], steps[i+1] = steps[i+1], steps[i]
	default:
		return f, errOp
	}
	f.Steps = steps
	return f, nil
}

// definition is f as a definition, with the problems of the values that
// do not parse (a duration). Those refuse the save before the owner
// service sees it, so the domain's own check of the rest is added to
// them: every problem shows at once.
func (f stepsForm) definition() (automation.Definition, automation.Problems) {
	d := automation.Definition{Name: f.Name, Event: f.Event, Steps: make([]automation.Step, 0, len(f.Steps))}
	var p automation.Problems
	for i, s := range f.Steps {
		step := automation.Step{Type: s.Type}
		switch s.Type {
		case automation.StepSend:
			step.Subject, step.HTML, step.SenderID = s.Subject, s.HTML, s.SenderID
		case automation.StepWait:
			var err error
			if step.Duration, err = automation.ParseDuration(s.Duration); err != nil {
				p = append(p, automation.Problem{Path: stepPath(i, "duration"), Message: err.Error()})
			}
		case automation.StepTag:
			step.Add, step.Remove = tagList(s.Add), tagList(s.Remove)
		}
		d.Steps = append(d.Steps, step)
	}
	if len(p) == 0 {
		return d, nil
	}
	for _, c := range d.Check() {
		if !slices.ContainsFunc(p, func(x automation.Problem) bool { return x.Path == c.Path }) {
			p = append(p, c)
		}
	}
	return d, p
}

// tagList is the tag names of a tag field, nil for none.
func tagList(s string) []string {
	tags := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })
	if len(tags) == 0 {
		return nil
	}
	return tags
}

// editorView is the editor as the template draws it.
type editorView struct {
	// Version is the version the form was drawn from (see stepsForm).
	Version int
	Full    bool // automation.MaxSteps steps: no step can be added
	// AddTo is where the page shown after an add puts the keyboard.
	AddTo       string
	Name, Event fieldView
	// StepsErrors are the problems of the steps as a whole (their count).
	StepsErrors []string
	Steps       []stepView
	Types       []automation.StepType
}

// fieldView is one labelled control and its problems.
type fieldView struct {
	Name, ID, Label, Value string
	Multiline              bool
	Errors                 []string
}

// stepView is one step's fieldset.
type stepView struct {
	Index, Number int
	ID            string
	Type          automation.StepType
	// Errors are the step's own problems (its type, its fields together).
	Errors      []string
	Fields      []fieldView
	First, Last bool
	// UpTo, DownTo and RemoveTo are where the page shown after that op
	// puts the keyboard: the moved step, or the step before the removed.
	UpTo, DownTo, RemoveTo string
}

// problemView is a problem of the error summary; Anchor is the id of the
// control it names, "" when the editor has none (postal_address).
type problemView struct {
	Path, Message, Anchor string
}

// stepFields are the fields of each step type, with their labels.
var stepFields = map[automation.StepType][]fieldView{
	automation.StepSend: {
		{Name: "subject", Label: "Subject"},
		{Name: "html", Label: "HTML", Multiline: true},
		{Name: "sender_id", Label: "Sender id (empty: the workspace's default sender)"},
	},
	automation.StepWait: {{Name: "duration", Label: "Wait for (such as 30m, 4h or 1d12h)"}},
	automation.StepTag: {
		{Name: "add", Label: "Tags to add (separated by spaces)"},
		{Name: "remove", Label: "Tags to remove (separated by spaces)"},
	},
}

// value is the text of field name of s.
func (s stepForm) value(name string) string {
	switch name {
	case "subject":
		return s.Subject
	case "html":
		return s.HTML
	case "sender_id":
		return s.SenderID
	case "duration":
		return s.Duration
	case "add":
		return s.Add
	case "remove":
		return s.Remove
	}
	return ""
}

// anchorOf is the id of the control a problem at path belongs to: a
// step's field (a list's element, add[1], its list's field), the step's
// fieldset (its type, or the step as a whole), or def-<path> (name,
// event, steps).
func anchorOf(path string) string {
	rest, ok := strings.CutPrefix(path, "steps[")
	index, field, closed := strings.Cut(rest, "]")
	if !ok || !closed || index == "" || strings.Trim(index, "0123456789") != "" {
		return "def-" + path
	}
	field, _, _ = strings.Cut(strings.TrimPrefix(field, "."), "[")
	if field == "" || field == "type" {
		return "def-steps-" + index
	}
	return "def-steps-" + index + "-" + field
}

// editorOf is f drawn with problems p beside the controls they name, and
// the error summary: every problem, linked to its control when the
// editor has it.
func editorOf(f stepsForm, p automation.Problems) (editorView, []problemView) {
	byAnchor := map[string][]string{}
	for _, x := range p {
		a := anchorOf(x.Path)
		byAnchor[a] = append(byAnchor[a], x.Message)
	}
	drawn := map[string]bool{"def-steps": true}
	field := func(fv fieldView, name, value string) fieldView {
		fv.Name, fv.Value = name, value
		fv.ID = anchorOf(name)
		fv.Errors, drawn[fv.ID] = byAnchor[fv.ID], true
		return fv
	}
	e := editorView{
		Version: f.Version, Full: len(f.Steps) >= automation.MaxSteps, AddTo: stepAnchor(len(f.Steps)),
		Name:  field(fieldView{Label: "Name"}, "name", f.Name),
		Event: field(fieldView{Label: "Event that starts a run (its name, as your backend reports it)"}, "event", f.Event),
		Types: automation.StepTypes, StepsErrors: byAnchor["def-steps"],
	}
	for i, s := range f.Steps {
		id := stepAnchor(i)
		sv := stepView{Index: i, Number: i + 1, ID: id, Type: s.Type, Errors: byAnchor[id], First: i == 0, Last: i == len(f.Steps)-1,
			UpTo: stepAnchor(i - 1), DownTo: stepAnchor(i + 1), RemoveTo: stepAnchor(i - 1)}
		if i == 0 {
			sv.RemoveTo = "def-steps"
		}
		drawn[id] = true
		for _, fv := range stepFields[s.Type] {
			sv.Fields = append(sv.Fields, field(fv, stepPath(i, fv.Name), s.value(fv.Name)))
		}
		e.Steps = append(e.Steps, sv)
	}
	summary := make([]problemView, 0, len(p))
	for _, x := range p {
		pv := problemView{Path: x.Path, Message: x.Message}
		if a := anchorOf(x.Path); drawn[a] {
			pv.Anchor = a
		}
		summary = append(summary, pv)
	}
	return e, summary
}
