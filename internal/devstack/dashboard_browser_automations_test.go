package devstack_test

import (
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/sesame-mail/sesame/internal/automation"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// In Chromium: an automation created from a blueprint, its activation
// refused with the problem shown on its page, then (the postal address
// set) activated; its steps edited from the keyboard (a subject changed,
// a wait added, a bad duration refused beside its field, then fixed and
// saved as version 2); the list, the refusals, the editor and the active
// page pass axe-core (make screenshots writes them).
func TestDashboardAutomationsInBrowser(t *testing.T) {
	d, s := startAutomationDashboard(t)
	tab := newTab(t)
	link := d.requestLink(t, noRedirects(), d.owner)
	run(t, tab, chromedp.Navigate(link), click(css("main button[type=submit]")), chromedp.WaitVisible(css("#waiting")))

	d.visit(t, tab, "/dashboard/automations", "automations-empty")
	run(t, tab, chromedp.SetValue(css("#auto-blueprint"), "back_in_stock"), chromedp.SendKeys(css("#auto-name"), "Restock"),
		click(css("#create-automation")), chromedp.WaitVisible(css("#activate")))
	run(t, tab, click(css("#activate")), chromedp.WaitVisible(css("#problems")))
	checkA11y(t, tab, "automation-refused")
	screenshot(t, tab, "automation-refused")

	addr := "Shop Ltd, 1 Main St"
	s.update(t, d.env, workspace.Settings{PostalAddress: &addr})
	run(t, tab, click(css("#activate")), chromedp.WaitVisible(css("#deactivate")))
	checkA11y(t, tab, "automation")
	screenshot(t, tab, "automation")
	list, err := d.automations().List(t.Context(), d.ws)
	if err != nil || len(list) != 1 || list[0].Name != "Restock" || list[0].Event != "back_in_stock" || list[0].Status != automation.StatusActive {
		t.Fatalf("automations after the flow: %+v, %v", list, err)
	}
	d.visit(t, tab, "/dashboard/automations", "automations")

	run(t, tab, chromedp.Navigate(d.url+"/dashboard/automations/"+list[0].ID), chromedp.WaitVisible(css("#def-steps-0-subject")),
		chromedp.SetValue(css("#def-steps-0-subject"), "Restocked: {{ event.product_name | \"your item\" }}"),
		click(css("#add-wait")), chromedp.WaitVisible(css("#def-steps-2-duration")))
	run(t, tab, chromedp.SendKeys(css("#def-steps-2-duration"), "soon"), click(css("#def-steps-2-op-up")), chromedp.WaitVisible(css("#def-steps-1-duration")))
	run(t, tab, click(css("#save-steps")), chromedp.WaitVisible(css("#def-steps-1-duration-error")))
	if got := value(t, tab, "#def-steps-1-duration"); got != "soon" {
		t.Errorf("the refused duration shows %q, want it as typed", got)
	}
	checkA11y(t, tab, "automation-steps-refused")
	screenshot(t, tab, "automation-steps-refused")
	run(t, tab, chromedp.SetValue(css("#def-steps-1-duration"), "2h"), click(css("#save-steps")), chromedp.WaitVisible(css("main .notice")))
	checkA11y(t, tab, "automation-steps")
	screenshot(t, tab, "automation-steps")
	saved, err := d.automations().Show(t.Context(), d.ws, list[0].ID)
	if err != nil || saved.Version != 2 || len(saved.Steps) != 3 || saved.Steps[0].Subject != `Restocked: {{ event.product_name | "your item" }}` ||
		saved.Steps[1].Type != automation.StepWait || saved.Steps[1].Duration.String() != "2h" {
		t.Errorf("after the edit in the browser: %+v, %v", saved, err)
	}
}
