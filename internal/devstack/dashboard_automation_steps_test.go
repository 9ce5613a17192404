package devstack_test

import (
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/account"
	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/automation"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// The step editor: add, move and remove change the form shown back and
// write nothing; Save writes the form as the next version (audited); a
// bad duration and an empty subject are refused (400) with each problem
// beside its field and linked from the summary, nothing written; a save
// made from an older version is refused (409); a send's html far above
// the dashboard's usual form size saves; an unknown op or a step
// out of range is refused (400); the CSRF token is required; another
// workspace's automation is 404.
func TestDashboardAutomationSteps(t *testing.T) {
	d, _ := startAutomationDashboard(t)
	c, csrf := d.signIn(t, d.owner)
	created, err := d.automations().Create(t.Context(), automation.AutomationRequest{WorkspaceID: d.ws, Blueprint: "product_viewed"})
	if err != nil {
		t.Fatal(err)
	}
	steps := "/dashboard/automations/" + created.ID + "/steps"
	def := created.Definition() // wait 4h, send, tag +product-viewed

	p := d.dashDo(t, c, steps, stepsValues(def, 1, csrf, "add:wait"))
	wantPage(t, "add", p, http.StatusOK, "Not saved yet", `<legend>Step 4: wait</legend>`, `name="steps[3].duration" value=""`, `name="steps[2].add" value="product-viewed"`)
	p = d.dashDo(t, c, steps, stepsValues(def, 1, csrf, "up:1"))
	wantPage(t, "up", p, http.StatusOK, `<legend>Step 1: send</legend>`, `<legend>Step 2: wait</legend>`, `name="steps[1].duration" value="4h"`)
	p = d.dashDo(t, c, steps, stepsValues(def, 1, csrf, "remove:0"))
	wantPage(t, "remove", p, http.StatusOK, `<legend>Step 1: send</legend>`, `<legend>Step 2: tag</legend>`)
	if strings.Contains(p.body, "Step 3:") {
		t.Errorf("remove left three steps: %s", p.body)
	}
	for op, want := range map[string]int{"delete:0": http.StatusBadRequest, "remove:3": http.StatusBadRequest, "down:2": http.StatusBadRequest} {
		p := d.dashDo(t, c, steps, stepsValues(def, 1, csrf, op))
		wantPage(t, op, p, want, `id="automation-error"`, "this button does not exist")
	}
	wantVersion(t, d, created.ID, 1, def)

	edited := def
	edited.Steps = []automation.Step{
		{Type: automation.StepSend, Subject: "Still looking?", HTML: "<p>Hi</p>"},
		{Type: automation.StepWait, Duration: automation.Duration(2 * time.Hour)},
		{Type: automation.StepTag, Add: []string{"viewed", "nudged"}},
	}
	p = d.dashDo(t, c, steps, stepsValues(edited, 1, csrf, "save"))
	wantPage(t, "save", p, http.StatusOK, "Saved", `<dd>2</dd>`, `name="version" value="2"`, `name="steps[2].add" value="viewed nudged"`)
	wantVersion(t, d, created.ID, 2, edited)

	bad := stepsValues(edited, 2, csrf, "save")
	bad.Set("steps[0].subject", "")
	bad.Set("steps[1].duration", "soon")
	p = d.dashDo(t, c, steps, bad)
	wantPage(t, "bad values", p, http.StatusBadRequest, notSavedHead,
		`<a href="#def-steps-0-subject"><code>steps[0].subject</code></a>: is required`,
		`<a href="#def-steps-1-duration"><code>steps[1].duration</code></a>: &#34;soon&#34; is not a duration`,
		`aria-describedby="def-steps-0-subject-error">`, `<p class="field-error" id="def-steps-0-subject-error">is required`,
		`name="steps[1].duration" value="soon" size="60" aria-invalid="true"`, `<p class="field-error" id="def-steps-1-duration-error">`)
	tooLong := stepsValues(edited, 2, csrf, "save")
	tooLong.Set("steps[1].duration", "91d")
	p = d.dashDo(t, c, steps, tooLong)
	wantPage(t, "a wait out of range", p, http.StatusBadRequest, `<a href="#def-steps-1-duration"><code>steps[1].duration</code></a>: a wait is 1m to 90d`)
	p = d.dashDo(t, c, steps, stepsValues(def, 1, csrf, "save"))
	wantPage(t, "a save from version 1", p, http.StatusConflict, "changed meanwhile", `name="steps[0].duration" value="4h"`,
		`name="version" value="1"`, `id="load-current">Load version 2</a>`)
	wantVersion(t, d, created.ID, 2, edited)
	// A form drawn from version 1 and changed by an op still carries
	// version 1: its save is refused too, and the JSON form's likewise.
	p = d.dashDo(t, c, steps, stepsValues(def, 1, csrf, "add:tag"))
	wantPage(t, "an add to a form of version 1", p, http.StatusOK, "Not saved yet", `name="version" value="1"`)
	p = d.dashDo(t, c, "/dashboard/automations/"+created.ID+"/edit", url.Values{"csrf": {csrf}, "version": {"1"}, "definition": {`{"name":"x","event":"product_viewed","steps":[{"type":"wait","duration":"1h"}]}`}})
	wantPage(t, "a JSON save from version 1", p, http.StatusConflict, "changed meanwhile", `name="version" value="1"`)
	wantVersion(t, d, created.ID, 2, edited)

	if p := d.dashDo(t, c, steps, stepsValues(def, 2, "", "save")); p.status != http.StatusForbidden {
		t.Errorf("save without the CSRF token: %d, want 403", p.status)
	}
	other, _ := d.workspace(apikey.Live)
	foreign, err := d.automations().Create(t.Context(), automation.AutomationRequest{WorkspaceID: other, Blueprint: "order_placed"})
	if err != nil {
		t.Fatal(err)
	}
	if p := d.dashDo(t, c, "/dashboard/automations/"+foreign.ID+"/steps", stepsValues(foreign.Definition(), 1, csrf, "save")); p.status != http.StatusNotFound {
		t.Errorf("another workspace's automation: %d, want 404", p.status)
	}
	wantVersion(t, d, created.ID, 2, edited)

	large := edited // a send's html far above the 64 KB other forms take
	large.Steps = slices.Clone(edited.Steps)
	large.Steps[0].HTML = "<p>" + strings.Repeat("Hello & welcome. ", 12<<10) + "</p>"
	p = d.dashDo(t, c, steps, stepsValues(large, 2, csrf, "save"))
	wantPage(t, "a 200 KB html", p, http.StatusOK, "Saved")
	wantVersion(t, d, created.ID, 3, large)
	wantNewestAudit(t, d, account.ActionAutomationEdited, account.ActionAutomationEdited)
}

// An active automation's steps: the problems that keep it from being
// active are shown beside their fields, whether Activate or Save met
// them; a changed event is refused at the event's field.
func TestDashboardAutomationStepsActive(t *testing.T) {
	d, s := startAutomationDashboard(t)
	c, csrf := d.signIn(t, d.owner)
	addr := "Shop Ltd, 1 Main St"
	s.update(t, d.env, workspace.Settings{PostalAddress: &addr})
	created, err := d.automations().Create(t.Context(), automation.AutomationRequest{WorkspaceID: d.ws, Blueprint: "back_in_stock"})
	if err != nil {
		t.Fatal(err)
	}
	page := "/dashboard/automations/" + created.ID
	if p := d.dashDo(t, c, page+"/activate", url.Values{"csrf": {csrf}}); p.status != http.StatusOK {
		t.Fatalf("activate: %d %s", p.status, p.body)
	}
	def := created.Definition()
	def.Steps = slices.Clone(def.Steps)
	def.Steps[0].HTML = "<p>Hi {{ contact.first_name }}</p>"
	p := d.dashDo(t, c, page+"/steps", stepsValues(def, 1, csrf, "save"))
	wantPage(t, "a variable without fallback", p, http.StatusBadRequest, "cannot be active",
		`<a href="#def-steps-0-html"><code>steps[0].html</code></a>`, `<p class="field-error" id="def-steps-0-html-error">`)
	renamed := created.Definition()
	renamed.Event = "restocked"
	p = d.dashDo(t, c, page+"/steps", stepsValues(renamed, 1, csrf, "save"))
	wantPage(t, "a new event", p, http.StatusBadRequest, notSavedHead, `<a href="#def-event"><code>event</code></a>: of an active automation stays back_in_stock`,
		`<input id="def-event" name="event" value="restocked" size="60" aria-invalid="true"`)
	wantVersion(t, d, created.ID, 1, created.Definition())
}

const notSavedHead = "The automation was not saved:"

// stepsValues is d as the step editor posts it, made from version, with
// op (save, add:wait, up:1 …) and the CSRF token ("" none).
func stepsValues(d automation.Definition, version int, csrf, op string) url.Values {
	v := url.Values{"name": {d.Name}, "event": {d.Event}, "op": {op}, "version": {fmt.Sprint(version)}}
	if csrf != "" {
		v.Set("csrf", csrf)
	}
	for i, s := range d.Steps {
		field := func(name, value string) { v.Set(fmt.Sprintf("steps[%d].%s", i, name), value) }
		field("type", string(s.Type))
		switch s.Type {
		case automation.StepSend:
			field("subject", s.Subject)
			field("html", s.HTML)
			field("sender_id", s.SenderID)
		case automation.StepWait:
			field("duration", s.Duration.String())
		case automation.StepTag:
			field("add", strings.Join(s.Add, " "))
			field("remove", strings.Join(s.Remove, " "))
		}
	}
	return v
}

// wantPage checks a dashboard answer's status and that its body has
// every one of want.
func wantPage(t *testing.T, what string, p page, status int, want ...string) {
	t.Helper()
	if p.status != status {
		t.Errorf("%s: %d, want %d: %s", what, p.status, status, p.body)
		return
	}
	for _, w := range want {
		if !strings.Contains(p.body, w) {
			t.Errorf("%s: the page lacks %s: %s", what, w, p.body)
		}
	}
}

// wantVersion checks the stored automation's version and definition.
func wantVersion(t *testing.T, d *dash, id string, version int, want automation.Definition) {
	t.Helper()
	a, err := d.automations().Show(t.Context(), d.ws, id)
	if err != nil || a.Version != version || !reflect.DeepEqual(a.Definition(), want) {
		t.Errorf("stored: %+v, %v; want version %d with %+v", a, err, version, want)
	}
}
