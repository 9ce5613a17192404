package devstack_test

import (
	"html"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/sesame-mail/sesame/internal/account"
)

// The approval page previews the email as its first frozen recipient
// gets it and names them: merge tags rendered for them, the footer with
// the postal address and an unsubscribe link shaped as theirs that
// unsubscribes nobody, in the sandboxed preview.
func TestDashboardApprovalPreviewsARecipientsEmail(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	b := newBulkWS(t, e)
	address := "owner-" + uuid.NewString()[:8] + "@example.com"
	if _, err := (&account.Owners{Store: e.store.Owners}).Add(t.Context(), b.id, address); err != nil {
		t.Fatal(err)
	}
	byID := map[string]contactBody{}
	for _, name := range [][2]string{{"Ann", "Lee"}, {"Bo", "<Chan>"}} {
		c := e.createContact(t, b.bulkKey, map[string]any{"email": rcpt(strings.ToLower(name[0])), "tags": []string{"vip"},
			"first_name": name[0], "last_name": name[1], "properties": map[string]any{"plan": "pro"}})
		byID[c.ID] = c
	}
	var d draftBody
	e.post(b.bulkKey, "/api/v1/send/bulk", map[string]any{"segment_id": b.segment(t, e, nil),
		"subject": `Hi {{ contact.first_name | "there" }}`,
		"html":    `<html><body><p>Dear {{ contact.first_name | "there" }} {{ contact.last_name }} ({{ contact.properties.plan | "free" }})</p></body></html>`,
	}).decode(t, http.StatusOK, &d)
	c, err := e.store.Campaigns.GetCampaign(t.Context(), b.id, d.ApprovalID)
	if err != nil {
		t.Fatal(err)
	}
	first := byID[frozen(t, e, b.id, c)[0]]
	shownAs := *first.FirstName + " " + *first.LastName + " <" + first.Email + ">"

	client, _ := e.signIn(t, address)
	page := e.dashDo(t, client, "/dashboard/approvals/"+d.ApprovalID, nil)
	for _, want := range []string{
		`id="preview-recipient">Shown as ` + html.EscapeString(shownAs) + " will see it",
		`id="preview-subject">Hi ` + html.EscapeString(*first.FirstName) + `<`,
		`src="/dashboard/preview/approvals/` + d.ApprovalID + `"`,
	} {
		if !strings.Contains(page.body, want) {
			t.Errorf("approval page lacks %q:\n%s", want, page.body)
		}
	}
	doc := e.dashDo(t, client, "/dashboard/preview/approvals/"+d.ApprovalID, nil)
	if doc.status != http.StatusOK || !strings.HasPrefix(doc.header.Get("Content-Security-Policy"), "sandbox;") {
		t.Fatalf("preview: %d, CSP %q", doc.status, doc.header.Get("Content-Security-Policy"))
	}
	link := e.url + "/unsubscribe/preview"
	for _, want := range []string{
		"<p>Dear " + html.EscapeString(*first.FirstName+" "+*first.LastName) + " (pro)</p>",
		"Shop Ltd, 1 Main St, Springfield",
		`<a href="` + link + `"`,
	} {
		if !strings.Contains(doc.body, want) {
			t.Errorf("preview lacks %q:\n%s", want, doc.body)
		}
	}
	if strings.Contains(doc.body, "{{") || strings.Index(doc.body, "Springfield") > strings.Index(doc.body, "</body>") {
		t.Errorf("preview has a tag left, or the footer after </body>:\n%s", doc.body)
	}
	// Another workspace's draft, or none, is not found; signed out, nothing.
	other := newBulkWS(t, e)
	other.vipContacts(t, e, 1)
	foreign := other.draft(t, e, other.segment(t, e, nil)).ApprovalID
	for _, id := range []string{foreign, uuid.NewString(), "not-an-id"} {
		if p := e.dashDo(t, client, "/dashboard/preview/approvals/"+id, nil); p.status != http.StatusNotFound || strings.Contains(p.body, "What changed") {
			t.Errorf("preview of %s: %d, want 404", id, p.status)
		}
	}
	if p := e.dashDo(t, noRedirects(), "/dashboard/preview/approvals/"+d.ApprovalID, nil); p.status == http.StatusOK || strings.Contains(p.body, "Dear") {
		t.Errorf("signed out, the preview answered %d", p.status)
	}
	// The preview's link unsubscribes nobody, whoever follows it.
	e.page(http.MethodPost, link, "application/x-www-form-urlencoded", []byte(oneClick))
	for id := range byID {
		if ct, err := e.store.Contacts.GetContact(t.Context(), b.id, id); err != nil || !ct.Subscribed {
			t.Errorf("%s after the preview's link: %+v %v", id, ct, err)
		}
	}
}
