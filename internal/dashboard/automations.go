package dashboard

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/sesame-mail/sesame/internal/automation"
	"github.com/sesame-mail/sesame/internal/owner"
)

func (a *App) automationRoutes() []route {
	return []route{
		{pattern: "GET /automations", handler: a.automations},
		{pattern: "POST /automations", handler: a.createAutomation},
		{pattern: "GET /automations/{id}", handler: a.automationPage},
		{pattern: "POST /automations/{id}/edit", handler: a.editAutomation},
		{pattern: "POST /automations/{id}/activate", handler: a.activateAutomation},
		{pattern: "POST /automations/{id}/deactivate", handler: a.deactivateAutomation},
		{pattern: "GET /automations/{id}/runs/{run}", handler: a.automationRun},
	}
}

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
	created, err := a.svc.Owner.Automations.Create(r.Context(), owner.AutomationRequest{
		WorkspaceID: s.WorkspaceID, Blueprint: r.PostFormValue("blueprint"),
		Name: strings.TrimSpace(r.PostFormValue("name")),
	})
	var input *owner.InputError
	if errors.As(err, &input) {
		return a.automationList(w, r, s, http.StatusBadRequest, input.Error())
	}
	if err != nil {
		return err
	}
	if err := a.audit(r.Context(), s, owner.ActionAutomationCreated, created.ID); err != nil {
		return err
	}
	http.Redirect(w, r, a.base+"/automations/"+created.ID, http.StatusSeeOther)
	return nil
}

type automationData struct {
	automation.View
	// Definition is what `sesame automations show --definition` prints,
	// the edit form's text unless an edit was refused.
	Definition string
	Runs       owner.RunList
	Notice     string
	Error      string
	// Problems are the activation problems, each with its path.
	Problems automation.Problems
}

// automationOutcome is what a POST on an automation page did: the page
// shows it above the automation.
type automationOutcome struct {
	status     int
	notice     string
	err        error
	definition string // the refused edit, kept in the form
}

func (a *App) automationPage(w http.ResponseWriter, r *http.Request, s *session) error {
	return a.showAutomation(w, r, s, automationOutcome{status: http.StatusOK})
}

// showAutomation renders the automation's page with o: a refused input or
// activation is shown on the page, anything else is an error.
func (a *App) showAutomation(w http.ResponseWriter, r *http.Request, s *session, o automationOutcome) error {
	au, err := a.svc.Owner.Automations.Show(r.Context(), s.WorkspaceID, r.PathValue("id"))
	if err != nil {
		return notFoundIfNamed(err, "automation")
	}
	d := automationData{View: au.View(), Notice: o.notice, Definition: o.definition}
	var activation *owner.ActivationError
	var input *owner.InputError
	switch {
	case o.err == nil:
	case errors.As(o.err, &activation):
		d.Error, d.Problems = "The automation cannot be active:", activation.Problems
	case errors.As(o.err, &input):
		d.Error = input.Error()
	case errors.Is(o.err, owner.ErrAutomationChanged):
		d.Error = o.err.Error()
	default:
		return o.err
	}
	if d.Definition == "" {
		if d.Definition, err = definitionText(au.Definition()); err != nil {
			return err
		}
	}
	if d.Runs, err = a.svc.Owner.AutomationRuns.Runs(r.Context(), s.WorkspaceID, au.ID, owner.RunPage{After: r.URL.Query().Get("after")}); err != nil {
		return err
	}
	return a.render(w, s, o.status, "automation.html", au.Name, "/automations", d)
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
	_, err := a.svc.Owner.Automations.Edit(r.Context(), s.WorkspaceID, r.PathValue("id"), owner.AutomationEdit{Definition: []byte(def)})
	if err == nil {
		err = a.audit(r.Context(), s, owner.ActionAutomationEdited, r.PathValue("id"))
		return a.outcome(w, r, s, err, "Saved: runs started from now on execute this version.", "")
	}
	return a.outcome(w, r, s, err, "", def)
}

func (a *App) activateAutomation(w http.ResponseWriter, r *http.Request, s *session) error {
	_, err := a.svc.Owner.Automations.Activate(r.Context(), s.WorkspaceID, r.PathValue("id"))
	if err == nil {
		err = a.audit(r.Context(), s, owner.ActionAutomationOn, r.PathValue("id"))
	}
	return a.outcome(w, r, s, err, "The automation is active: its event starts runs.", "")
}

func (a *App) deactivateAutomation(w http.ResponseWriter, r *http.Request, s *session) error {
	_, err := a.svc.Owner.Automations.Deactivate(r.Context(), s.WorkspaceID, r.PathValue("id"))
	if err == nil {
		err = a.audit(r.Context(), s, owner.ActionAutomationOff, r.PathValue("id"))
	}
	return a.outcome(w, r, s, err, "The automation is inactive: runs under way go on.", "")
}

// outcome shows the automation's page after a POST: with notice when err
// is nil, with the refusal (400) when the owner service refused.
func (a *App) outcome(w http.ResponseWriter, r *http.Request, s *session, err error, notice, definition string) error {
	if err == nil {
		return a.showAutomation(w, r, s, automationOutcome{status: http.StatusOK, notice: notice})
	}
	if err := notFoundIfNamed(err, "automation"); errors.Is(err, errNotFound) {
		return err
	}
	status := http.StatusBadRequest
	if errors.Is(err, owner.ErrAutomationChanged) {
		status = http.StatusConflict
	}
	return a.showAutomation(w, r, s, automationOutcome{status: status, err: err, definition: definition})
}

type runData struct {
	Automation automation.Automation
	Run        automation.Run
}

// automationRun is one run of the automation with its step log.
func (a *App) automationRun(w http.ResponseWriter, r *http.Request, s *session) error {
	au, err := a.svc.Owner.Automations.Show(r.Context(), s.WorkspaceID, r.PathValue("id"))
	if err != nil {
		return notFoundIfNamed(err, "automation")
	}
	run, err := a.svc.Owner.AutomationRuns.Run(r.Context(), s.WorkspaceID, r.PathValue("run"))
	if err != nil {
		return notFoundIfNamed(err, "run")
	}
	if run.AutomationID != au.ID {
		return errNotFound
	}
	return a.render(w, s, http.StatusOK, "automation-run.html", "Run of "+au.Name, "/automations", runData{Automation: au, Run: run})
}
