package devstack_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/apikey"
)

// The owner sees the workspace's stored templates, each version with its
// review, rendered with sample values in a sandboxed preview; another
// workspace's template is not found.
func TestDashboardTemplates(t *testing.T) {
	d := startDashboard(t)
	key, _, err := d.store.Keys.CreateKey(t.Context(), d.ws, apikey.Live, "", apikey.FullAccess)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := d.signIn(t, d.owner)
	if p := d.dashDo(t, c, "/dashboard/templates", nil); p.status != http.StatusOK || !strings.Contains(p.body, "No template yet") {
		t.Fatalf("empty list: %d %s", p.status, p.body)
	}
	tpl := d.post(key, "/api/v1/templates", map[string]any{
		"name": "Shipping notice", "subject": "Order {{ data.order }} is on its way",
		"html": `<p>Hi {{ contact.first_name | "there" }}, order {{ data.order }} left today.</p>`,
	}).template(t, http.StatusCreated)
	d.call(key, http.MethodPatch, "/api/v1/templates/"+tpl.ID, map[string]any{
		"html": `<div><p>Order {{ data.order }} shipped, {{ contact.first_name | "friend" }}.</p></div>`,
	}).template(t, http.StatusOK)

	list := d.dashDo(t, c, "/dashboard/templates", nil)
	if list.status != http.StatusOK || !strings.Contains(list.body, `/dashboard/templates/`+tpl.ID+`">Shipping notice</a>`) || !strings.Contains(list.body, "<td>2</td><td>order</td>") {
		t.Errorf("list: %d %s", list.status, list.body)
	}

	latest := d.dashDo(t, c, "/dashboard/templates/"+tpl.ID, nil)
	for _, want := range []string{
		`id="template-version">2 (the latest: sends use it)`, `id="template-review">cleared`,
		`id="template-subject">Order [order] is on its way`,
		`src="/dashboard/preview/templates/` + tpl.ID + `?version=2"`, `?version=1">Version 1</a>`,
	} {
		if !strings.Contains(latest.body, want) {
			t.Errorf("latest version's page lacks %q:\n%s", want, latest.body)
		}
	}
	first := d.dashDo(t, c, "/dashboard/templates/"+tpl.ID+"?version=1", nil)
	if !strings.Contains(first.body, `id="template-version">1 (not the latest: sends use version 2)`) {
		t.Errorf("version 1's page: %s", first.body)
	}
	preview := d.dashDo(t, c, "/dashboard/preview/templates/"+tpl.ID+"?version=1", nil)
	if preview.status != http.StatusOK || preview.body != "<p>Hi Alex, order [order] left today.</p>" ||
		!strings.HasPrefix(preview.header.Get("Content-Security-Policy"), "sandbox;") {
		t.Errorf("version 1's preview: %d %q (CSP %q)", preview.status, preview.body, preview.header.Get("Content-Security-Policy"))
	}

	other := startDashboard(t)
	oc, _ := other.signIn(t, other.owner)
	for _, path := range []string{"/dashboard/templates/" + tpl.ID, "/dashboard/preview/templates/" + tpl.ID, "/dashboard/templates/" + tpl.ID + "?version=x"} {
		if p := other.dashDo(t, oc, path, nil); p.status != http.StatusNotFound {
			t.Errorf("%s from another workspace: %d, want 404", path, p.status)
		}
	}
}
