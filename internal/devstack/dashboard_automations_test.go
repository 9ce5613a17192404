package devstack_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/account"
	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/automation"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// Automations: the empty list offers the four blueprints; an unknown one
// is refused on the page; a draft created from one shows its steps (the
// step editor) and definition; activating it without a postal address is refused with the
// problem and its path, with one it is active; a bad JSON edit keeps the text
// and says why, a good one is saved; an event's run is listed and shown;
// another workspace's automation and run are 404; each change is audited.
func TestDashboardAutomations(t *testing.T) {
	d, s := startAutomationDashboard(t)
	c, csrf := d.signIn(t, d.owner)
	p := d.dashDo(t, c, "/dashboard/automations", nil)
	if p.status != http.StatusOK || !strings.Contains(p.body, "No automation yet") || strings.Contains(p.body, "soon") {
		t.Fatalf("empty list: %d %s", p.status, p.body)
	}
	for _, b := range automation.BlueprintNames() {
		if !strings.Contains(p.body, `<option value="`+b+`">`) {
			t.Errorf("the form lacks blueprint %s", b)
		}
	}
	if p := d.dashDo(t, c, "/dashboard/automations", url.Values{"csrf": {csrf}, "blueprint": {"nope"}}); p.status != http.StatusBadRequest || !strings.Contains(p.body, `id="create-error">blueprint`) {
		t.Errorf("an unknown blueprint: %d %s", p.status, p.body)
	}
	if p := d.dashDo(t, c, "/dashboard/automations", url.Values{"blueprint": {"cart_abandoned"}}); p.status != http.StatusForbidden {
		t.Errorf("create without the CSRF token: %d, want 403", p.status)
	}
	p = d.dashDo(t, c, "/dashboard/automations", url.Values{"csrf": {csrf}, "blueprint": {"cart_abandoned"}, "name": {"Cart"}})
	id := strings.TrimPrefix(p.header.Get("Location"), "/dashboard/automations/")
	if p.status != http.StatusSeeOther || uuid.Validate(id) != nil {
		t.Fatalf("create: %d %v", p.status, p.header)
	}
	page := "/dashboard/automations/" + id
	p = d.dashDo(t, c, page, nil)
	for _, want := range []string{`id="status">draft`, `<legend>Step 1: wait</legend>`, `name="steps[0].duration" value="1h"`, `&#34;event&#34;: &#34;cart_abandoned&#34;`, "No run yet", `id="activate"`} {
		if !strings.Contains(p.body, want) {
			t.Errorf("draft page lacks %q: %s", want, p.body)
		}
	}

	activate := url.Values{"csrf": {csrf}}
	p = d.dashDo(t, c, page+"/activate", activate)
	if p.status != http.StatusBadRequest || !strings.Contains(p.body, `<ul id="problems"><li><code>postal_address</code>: the workspace has no postal address`) {
		t.Fatalf("activate without a postal address: %d %s", p.status, p.body)
	}
	addr := "Shop Ltd, 1 Main St"
	s.update(t, d.env, workspace.Settings{PostalAddress: &addr})
	if p := d.dashDo(t, c, page+"/activate", activate); p.status != http.StatusOK || !strings.Contains(p.body, `id="status">active`) || !strings.Contains(p.body, `id="deactivate"`) {
		t.Fatalf("activate: %d %s", p.status, p.body)
	}

	bad := `{"name": "Cart", "event": "cart_abandoned", "steps": [{"type": "wait", "duration": "100d"}]}`
	p = d.dashDo(t, c, page+"/edit", url.Values{"csrf": {csrf}, "definition": {bad}})
	if p.status != http.StatusBadRequest || !strings.Contains(p.body, `id="automation-error"`) || !strings.Contains(p.body, "steps[0].duration") || !strings.Contains(p.body, `&#34;duration&#34;: &#34;100d&#34;`) {
		t.Errorf("a wait out of range: %d %s", p.status, p.body)
	}
	good := `{"name": "Cart v2", "event": "cart_abandoned", "steps": [{"type": "tag", "add": ["carted"]}]}`
	if p := d.dashDo(t, c, page+"/edit", url.Values{"csrf": {csrf}, "definition": {good}}); p.status != http.StatusOK || !strings.Contains(p.body, "Saved") || !strings.Contains(p.body, `<legend>Step 1: tag</legend>`) || !strings.Contains(p.body, `name="steps[0].add" value="carted"`) {
		t.Errorf("edit: %d %s", p.status, p.body)
	}

	contactID := eventWS{id: s.id}.contact(t, d.env, "ada@example.com")
	res := d.report(t, s.scopedKey(t, d.env, apikey.AutomationsTrigger), event("cart_abandoned", "order-1", contactID, map[string]any{"cart": "<b>2 items</b>"}))
	if len(res.Runs) != 1 {
		t.Fatalf("event result %+v", res)
	}
	run := page + "/runs/" + res.Runs[0].RunID
	if p := d.dashDo(t, c, page, nil); !strings.Contains(p.body, `href="`+run+`"`) {
		t.Errorf("the page does not list the run: %s", p.body)
	}
	if p := d.dashDo(t, c, run, nil); p.status != http.StatusOK || !strings.Contains(p.body, contactID) || !strings.Contains(p.body, "&lt;b&gt;2 items&lt;/b&gt;") {
		t.Errorf("run page: %d %s", p.status, p.body)
	}

	other, _ := d.workspace(apikey.Live)
	foreign, err := d.automations().Create(t.Context(), automation.AutomationRequest{WorkspaceID: other, Blueprint: "order_placed"})
	if err != nil {
		t.Fatal(err)
	}
	for path, form := range map[string]url.Values{
		"/dashboard/automations/" + foreign.ID:                                nil,
		"/dashboard/automations/" + foreign.ID + "/activate":                  activate,
		"/dashboard/automations/" + foreign.ID + "/runs/" + res.Runs[0].RunID: nil,
		page + "/runs/" + uuid.NewString():                                    nil,
	} {
		if p := d.dashDo(t, c, path, form); p.status != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", path, p.status)
		}
	}

	if p := d.dashDo(t, c, page+"/deactivate", activate); p.status != http.StatusOK || !strings.Contains(p.body, `id="status">inactive`) {
		t.Errorf("deactivate: %d %s", p.status, p.body)
	}
	wantNewestAudit(t, d, account.ActionAutomationOff, account.ActionAutomationEdited, account.ActionAutomationOn, account.ActionAutomationCreated)
}

// startAutomationDashboard is a dashboard over a workspace that sends
// from a verified domain's default sender, without a postal address.
func startAutomationDashboard(t *testing.T) (*dash, *sendWS) {
	t.Helper()
	e := startDev(t)
	s := newSendWS(t, e, defaultSender())
	address := "owner-" + uuid.NewString()[:8] + "@example.com"
	if _, err := (&account.Owners{Store: e.store.Owners}).Add(t.Context(), s.id, address); err != nil {
		t.Fatal(err)
	}
	return &dash{env: e, ws: s.id, owner: address}, s
}
