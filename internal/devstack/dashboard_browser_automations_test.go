package devstack_test

import (
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/sesame-mail/sesame/internal/automation"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// In Chromium: an automation created from a blueprint, its activation
// refused with the problem shown on its page, then (the postal address
// set) activated; the list, the refusal and the active page pass
// axe-core (make screenshots writes them).
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
}
