package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/api/templates"
	"github.com/sesame-mail/sesame/internal/emailtemplate"
)

// createTemplate stores a template as POST /api/v1/templates does.
func (c *consoleTable) createTemplate(ws, name, subject, html string) emailtemplate.Version {
	c.t.Helper()
	v, err := templates.Service(c.store.Table).Create(c.t.Context(), ws, emailtemplate.Input{Name: &name, Subject: &subject, HTML: &html})
	if err != nil {
		c.t.Fatal(err)
	}
	return v
}

func TestTemplatesListShow(t *testing.T) {
	c := newConsoleTable(t)
	ws := c.createWorkspace("Acme")
	other := c.createWorkspace("Other")
	shipped := c.createTemplate(ws, "Order shipped", "Your order {{ data.order }} shipped",
		`<p>Hi {{ contact.first_name | "there" }}, order {{ data.order }} goes by {{ data.carrier | "post" }}.</p>`)
	html2 := `<p>Hello {{ contact.first_name | "there" }}: order {{ data.order }} is on its way.</p>`
	if _, err := templates.Service(c.store.Table).Update(t.Context(), ws, shipped.ID, emailtemplate.Input{HTML: &html2}); err != nil {
		t.Fatal(err)
	}
	login := c.createTemplate(ws, "Login", "Sign in",
		`<form action="https://acme.example/login"><input type="password" name="p"></form>`)

	list := c.must("templates", "list", "--workspace", ws)
	for _, want := range [][]string{
		{"ID", "NAME", "VERSION", "VARIABLES", "REVIEW", "UPDATED"},
		{login.ID, "Login", "1", "none", "denied"},
		{shipped.ID, "Order", "shipped", "2", "order", "cleared"},
	} {
		if !hasRow(list, want) {
			t.Errorf("templates list printed\n%s\nmissing the row %q", list, want)
		}
	}
	if out := c.must("templates", "list", "--workspace", other); strings.Contains(out, shipped.ID) || strings.Contains(out, login.ID) {
		t.Errorf("another workspace lists the templates:\n%s", out)
	}
	rows, _ := mustJSON[[]templateListed](c, "templates", "list", "--workspace", ws)
	if len(rows) != 2 || rows[0].ID != login.ID || rows[1].Version != 2 || strings.Join(rows[1].Variables, ",") != "order" ||
		rows[0].Review.State != emailtemplate.ReviewDenied || len(rows[0].Review.Reasons) == 0 {
		t.Errorf("templates list --output json = %+v", rows)
	}

	// The latest version, rendered with sample values: the data variable
	// as [order], the contact's first name as the sample contact's.
	show := c.must("templates", "show", shipped.ID, "--workspace", ws)
	for _, want := range []string{
		"version     2", "subject     Your order {{ data.order }} shipped", "variables   order", "review      cleared",
		"Sample subject: Your order [order] shipped",
		"<p>Hello Alex: order [order] is on its way.</p>",
	} {
		if !strings.Contains(show, want) {
			t.Errorf("templates show printed\n%s\nmissing %q", show, want)
		}
	}
	v1 := c.must("templates", "show", shipped.ID, "--version", "1", "--workspace", ws)
	for _, want := range []string{"version     1", "variables   carrier, order", "<p>Hi Alex, order [order] goes by [carrier].</p>"} {
		if !strings.Contains(v1, want) {
			t.Errorf("templates show --version 1 printed\n%s\nmissing %q", v1, want)
		}
	}
	denied := c.must("templates", "show", login.ID, "--workspace", ws)
	if !strings.Contains(denied, "review      denied") || !strings.Contains(denied, "  reason") {
		t.Errorf("templates show of a denied layout printed\n%s", denied)
	}
	shown, _ := mustJSON[templateShown](c, "templates", "show", shipped.ID, "--version", "1", "--workspace", ws)
	if shown.Version != 1 || shown.SampleSubject != "Your order [order] shipped" || !strings.Contains(shown.SampleHTML, "goes by [carrier]") {
		t.Errorf("templates show --output json = %+v", shown)
	}

	for _, tc := range []struct {
		args    []string
		wantMsg string
	}{
		{[]string{"templates", "show", "0190a000-0000-7000-8000-000000000000", "--workspace", ws}, "0190a000-0000-7000-8000-000000000000 is not a template of the workspace"},
		{[]string{"templates", "show", shipped.ID, "--workspace", other}, shipped.ID + " is not a template of the workspace"},
		{[]string{"templates", "show", shipped.ID, "--version", "3", "--workspace", ws}, "or has no version 3"},
		{[]string{"templates", "show", shipped.ID, "--version", "0", "--workspace", ws}, "--version must be 1 or more"},
		{[]string{"templates", "show", shipped.ID, "--version", "-2", "--workspace", ws}, "--version must be 1 or more"},
		{[]string{"templates", "show", shipped.ID, "--version", "two", "--workspace", ws}, `invalid argument "two" for "--version"`},
		{[]string{"templates", "show", shipped.ID}, "--workspace is required"},
		{[]string{"templates", "list"}, "--workspace is required"},
	} {
		out, err := c.run(tc.args...)
		checkFails(t, tc.args, out, err, nil, tc.wantMsg)
	}
}

// hasRow reports whether a line of out starts with the fields want.
func hasRow(out string, want []string) bool {
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) >= len(want) && slices.Equal(f[:len(want)], want) {
			return true
		}
	}
	return false
}
