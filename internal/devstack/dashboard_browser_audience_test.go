package devstack_test

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/identity"
)

// In Chromium: an address suppressed with the form and removed with its
// row's button; the contacts, segments, domains, senders and workspace
// screens with data, each passing axe-core (make screenshots writes
// them).
func TestDashboardAudienceInBrowser(t *testing.T) {
	d := startDashboard(t)
	ct := contact.Contact{ID: uuid.Must(uuid.NewV7()).String(), WorkspaceID: d.ws, Email: "ann@example.com", Subscribed: true,
		Tags: []string{"vip"}, Properties: map[string]contact.Property{"plan": contact.StringProperty("gold")}, CreatedAt: time.Now(), UpdatedAt: time.Now()}
	if err := d.store.Contacts.CreateContact(t.Context(), ct); err != nil {
		t.Fatal(err)
	}
	seg := storeSegment(t, d.env, d.ws)
	if _, err := d.store.Domains.AddDomain(t.Context(), d.ws, "shop.example", []identity.DNSRecord{{Type: "CNAME", Name: "k._domainkey.shop.example", Value: "k.dkim.amazonses.com"}}); err != nil {
		t.Fatal(err)
	}
	tab := newTab(t)
	link := d.requestLink(t, noRedirects(), d.owner)
	run(t, tab, chromedp.Navigate(link), click(css("main button[type=submit]")), chromedp.WaitVisible(css("#waiting")))

	d.visit(t, tab, "/dashboard/suppressions", "suppressions-empty")
	run(t, tab, chromedp.SendKeys(css("#sup-address"), "gone@example.com"), click(css("form.stack button[type=submit]")),
		chromedp.WaitVisible(css(`button[aria-label="Remove gone@example.com"]`)))
	if listed, err := d.store.Suppressions.Suppressed(t.Context(), d.ws, "gone@example.com"); !listed || err != nil {
		t.Fatalf("after the add form: suppressed %v, %v", listed, err)
	}
	checkA11y(t, tab, "suppressions")
	screenshot(t, tab, "suppressions")
	run(t, tab, click(css(`button[aria-label="Remove gone@example.com"]`)), chromedp.WaitVisible(css("p.empty")))
	if listed, err := d.store.Suppressions.Suppressed(t.Context(), d.ws, "gone@example.com"); listed || err != nil {
		t.Errorf("after the remove button: suppressed %v, %v", listed, err)
	}

	for path, name := range map[string]string{
		"/dashboard/contacts":           "contacts",
		"/dashboard/contacts/" + ct.ID:  "contact",
		"/dashboard/contacts/import":    "contacts-import",
		"/dashboard/segments":           "segments",
		"/dashboard/segments/" + seg:    "segment",
		"/dashboard/settings/domains":   "domains",
		"/dashboard/settings/senders":   "senders",
		"/dashboard/settings/workspace": "workspace",
	} {
		d.visit(t, tab, path, name)
	}
}
