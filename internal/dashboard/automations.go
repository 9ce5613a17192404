package dashboard

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/sesame-mail/sesame/internal/account"
	"github.com/sesame-mail/sesame/internal/automation"
	"github.com/sesame-mail/sesame/internal/fail"
)

func (a *App) automationRoutes() []route {
	return []route{
		{pattern: "GET /automations", handler: a.automations},
		{pattern: "POST /automations", handler: a.createAutomation},
		{pattern: "GET /automations/{id}", handler: a.automationPage},
		{pattern: "POST /automations/{id}/edit", handler: a.editAutomation, maxBody: maxDefinitionForm},
		{pattern: "POST /automations/{id}/steps", handler: a.editSteps, maxBody: maxDefinitionForm},
		{pattern: "POST /automations/{id}/activate", handler: a.activateAutomation},
		{pattern: "POST /automations/{id}/deactivate", handler: a.deactivateAutomation},
		{pattern: "GET /automations/{id}/runs/{run}", handler: a.automationRun},
	}
}

// maxDefinitionForm bounds a form holding a whole definition: its steps
// at their limit, percent-encoding tripling a byte at worst.
const maxDefinitionForm = 3*automation.MaxStepsBytes + maxForm

type automationsData struct {
	Automations []automation.Automation
	Blueprints  []string
	Error       string
}

func (a *App) automationList(w http.ResponseWriter, r *http.Request, s *session, status int, msg string) error {
	list, err := a.svc.Owner.Automations.List(r.Context(), s.WorkspaceID)
	if err != nil {
		return err
	}
	d := automationsData{Automations: list, Blueprints: automation.BlueprintNames(), Error: msg}
	return a.render(w, s, status, "automations.html", "Automations", "/automations", d)
}

func (a *App) automations(w http.ResponseWriter, r *http.Request, s *session) error {
	return a.automationList(w, r, s, http.StatusOK, "")
}

// createAutomation creates a draft from a blueprint, as `sesame
// automations create --blueprint` does.
func (a *App) createAutomation(w http.ResponseWriter, r *http.Request, s *session) error {
	created, err := a.svc.Owner.Automations.Create(r.Context(), automation.AutomationRequest{
		WorkspaceID: s.WorkspaceID, Blueprint: r.PostFormValue("blueprint"),
		Name: strings.TrimSpace(r.PostFormValue("name")),
	})
	if msg, ok := refusal(err); ok {
		return a.automationList(w, r, s, http.StatusBadRequest, msg)
	}
	if err != nil {
		return err
	}
	if err := a.audit(r.Context(), s, account.ActionAutomationCreated, created.ID); err != nil {
		return err
	}
	http.Redirect(w, r, a.base+"/automations/"+created.ID, http.StatusSeeOther)
	return nil
}

type automationData struct {
	automation.View
	// Editor is the step editor: the saved definition, or the form as
	// posted when an op changed it or a save was refused.
	Editor editorView
	// Definition is what `sesame automations show --definition` prints,
	// the advanced JSON form's text unless an edit of it was refused, and
	// DefinitionVersion the version that text was drawn from.
	Definition        string
	DefinitionVersion int
	// Stale: a save was refused because another version was saved since
	// the form was drawn; the page offers to load it.
	Stale  bool
	Runs   automation.RunList
	Notice string
	Error  string
	// Problems are the refused save's or activation's, each with its path
	// and, when the editor has it, a link to its control.
	Problems []problemView
}

// automationOutcome is what a POST on an automation page did: the page
// shows it above the automation.
type automationOutcome struct {
	status int
	notice string
	err    error
	// form is the step editor as posted (nil: the saved definition);
	// problems are its values' that did not parse.
	form     *stepsForm
	problems automation.Problems
	// definition is a refused JSON edit, kept in its form with the
	// version it was drawn from.
	definition        string
	definitionVersion int
}

func (a *App) automationPage(w http.ResponseWriter, r *http.Request, s *session) error {
	return a.showAutomation(w, r, s, automationOutcome{status: http.StatusOK})
}

// showAutomation renders the automation's page with o: a refused input or
// activation is shown on the page, anything else is an error.
func (a *App) showAutomation(w http.ResponseWriter, r *http.Request, s *session, o automationOutcome) error {
	au, err := a.svc.Owner.Automations.Show(r.Context(), s.WorkspaceID, r.PathValue("id"))
	if err != nil {
		return err
	}
	d := automationData{View: au.View(), Notice: o.notice, Definition: o.definition, DefinitionVersion: au.Version}
	if o.definition != "" {
		d.DefinitionVersion = o.definitionVersion
	}
	form, problems := formOf(au.Definition(), au.Version), o.problems
	if o.form != nil {
		form = *o.form
	}
	if len(problems) > 0 {
		d.Error = notSaved
	}
	var activation *automation.ActivationError
	input, refused := fail.As(o.err)
	switch {
	case o.err == nil:
	case errors.As(o.err, &activation):
		d.Error, problems = "The automation cannot be active:", activation.Problems
	case errors.Is(o.err, automation.ErrAutomationChanged):
		d.Error, d.Stale = o.err.Error(), true
	case errors.Is(o.err, errOp), errors.Is(o.err, errTooManySteps):
		d.Error = o.err.Error()
	case refused && isRefusal(input.Kind):
		d.Error, problems = inputProblems(input)
	default:
		return o.err
	}
	d.Editor, d.Problems = editorOf(form, problems)
	if o.definition != "" { // the problems are the JSON's, not the editor's
		d.Editor, _ = editorOf(form, nil)
		for i := range d.Problems {
			d.Problems[i].Anchor = ""
		}
	}
	if d.Definition == "" {
		if d.Definition, err = definitionText(au.Definition()); err != nil {
			return err
		}
	}
	if d.Runs, err = a.svc.Owner.AutomationRuns.Runs(r.Context(), s.WorkspaceID, au.ID, automation.RunPage{After: r.URL.Query().Get("after")}); err != nil {
		return err
	}
	return a.render(w, s, o.status, "automation.html", au.Name, "/automations", d)
}

// notSaved heads the problems of a refused save.
const notSaved = "The automation was not saved:"

// inputProblems is a refused edit as the page shows it: the definition's
// problems, or the one input refused (the name, the event) as a problem
// at its path, or else (a JSON that does not parse) its message alone.
func inputProblems(input *fail.Error) (string, automation.Problems) {
	var p automation.Problems
	switch {
	case errors.As(input.Err, &p):
		return notSaved, p
	case input.Param == "name" || input.Param == "event":
		msg := strings.TrimPrefix(input.Message, input.Param+" ")
		if input.Err != nil {
			msg = input.Err.Error()
		}
		return notSaved, automation.Problems{{Path: input.Param, Message: msg}}
	}
	return input.Message, nil
}

// definitionText is d as `sesame automations show --definition` prints
// it, HTML left readable (the page escapes it).
func definitionText(d automation.Definition) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	err := enc.Encode(d)
	return b.String(), err
}

// editAutomation writes the definition of the form as the automation's
// next version, as `sesame automations edit --file` does.
func (a *App) editAutomation(w http.ResponseWriter, r *http.Request, s *session) error {
	def := r.PostFormValue("definition")
	version, _ := strconv.Atoi(r.PostFormValue("version"))
	_, err := a.svc.Owner.Automations.Edit(r.Context(), s.WorkspaceID, r.PathValue("id"), automation.AutomationEdit{Definition: []byte(def), Version: version})
	if err == nil {
		err = a.audit(r.Context(), s, account.ActionAutomationEdited, r.PathValue("id"))
		return a.outcome(w, r, s, err, savedNotice, automationOutcome{})
	}
	return a.outcome(w, r, s, err, "", automationOutcome{definition: def, definitionVersion: version})
}

const savedNotice = "Saved: runs started from now on execute this version."

// editSteps is the step editor's submit: op save writes the form as the
// automation's next version (the owner service checks it), any other op
// changes the form and shows it again, unsaved.
func (a *App) editSteps(w http.ResponseWriter, r *http.Request, s *session) error {
	op := r.PostFormValue("op")
	form, err := readStepsForm(r.PostForm)
	if err != nil {
		return fail.Refused("steps", err)
	}
	if op != opSave {
		changed, err := form.apply(op)
		if err != nil {
			return a.showAutomation(w, r, s, automationOutcome{status: http.StatusBadRequest, err: err, form: &form})
		}
		return a.showAutomation(w, r, s, automationOutcome{status: http.StatusOK, form: &changed,
			notice: "Not saved yet: Save writes these steps as a new version."})
	}
	def, problems := form.definition()
	if len(problems) > 0 {
		return a.showAutomation(w, r, s, automationOutcome{status: http.StatusBadRequest, form: &form, problems: problems})
	}
	body, err := json.Marshal(def)
	if err != nil {
		return err
	}
	id := r.PathValue("id")
	_, err = a.svc.Owner.Automations.Edit(r.Context(), s.WorkspaceID, id, automation.AutomationEdit{Definition: body, Version: form.Version})
	if err == nil {
		err = a.audit(r.Context(), s, account.ActionAutomationEdited, id)
		return a.outcome(w, r, s, err, savedNotice, automationOutcome{})
	}
	return a.outcome(w, r, s, err, "", automationOutcome{form: &form})
}

func (a *App) activateAutomation(w http.ResponseWriter, r *http.Request, s *session) error {
	_, err := a.svc.Owner.Automations.Activate(r.Context(), s.WorkspaceID, r.PathValue("id"))
	if err == nil {
		err = a.audit(r.Context(), s, account.ActionAutomationOn, r.PathValue("id"))
	}
	return a.outcome(w, r, s, err, "The automation is active: its event starts runs.", automationOutcome{})
}

func (a *App) deactivateAutomation(w http.ResponseWriter, r *http.Request, s *session) error {
	_, err := a.svc.Owner.Automations.Deactivate(r.Context(), s.WorkspaceID, r.PathValue("id"))
	if err == nil {
		err = a.audit(r.Context(), s, account.ActionAutomationOff, r.PathValue("id"))
	}
	return a.outcome(w, r, s, err, "The automation is inactive: runs under way go on.", automationOutcome{})
}

// outcome shows the automation's page after a POST: with notice when err
// is nil, with the refusal (400) when the owner service refused, the
// refused input (the form or the definition in kept) shown again.
func (a *App) outcome(w http.ResponseWriter, r *http.Request, s *session, err error, notice string, kept automationOutcome) error {
	if err == nil {
		return a.showAutomation(w, r, s, automationOutcome{status: http.StatusOK, notice: notice})
	}
	if fail.KindOf(err) == fail.KindNotFound {
		return err
	}
	status := http.StatusBadRequest
	if errors.Is(err, automation.ErrAutomationChanged) {
		status = http.StatusConflict
	}
	kept.status, kept.err = status, err
	return a.showAutomation(w, r, s, kept)
}

type runData struct {
	Automation automation.Automation
	Run        automation.Run
}

// automationRun is one run of the automation with its step log.
func (a *App) automationRun(w http.ResponseWriter, r *http.Request, s *session) error {
	au, err := a.svc.Owner.Automations.Show(r.Context(), s.WorkspaceID, r.PathValue("id"))
	if err != nil {
		return err
	}
	run, err := a.svc.Owner.AutomationRuns.Run(r.Context(), s.WorkspaceID, r.PathValue("run"))
	if err != nil {
		return err
	}
	if run.AutomationID != au.ID {
		return errNotFound
	}
	return a.render(w, s, http.StatusOK, "automation-run.html", "Run of "+au.Name, "/automations", runData{Automation: au, Run: run})
}
