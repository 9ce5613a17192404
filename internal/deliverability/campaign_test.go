package deliverability_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/sesame-mail/sesame/internal/deliverability"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// The draft's verdict is the check of the email as its recipients get
// it: Sesame's footer, unsubscribe link and one-click headers included
// (so the content needs no unsubscribe link of its own, and the footer's
// link is no finding), and the workspace's own brands cleared as /send
// clears them.
func TestDeliverabilityOfTheComposedEmail(t *testing.T) {
	const content = `<h1>November at Acme</h1><p>We shipped faster exports, a calendar view and a cleaner settings page.
Each of them came from your feedback, so thank you for writing to us. The details are on our blog.</p>
<p><a href="https://www.acme.example/blog">Read the notes</a></p>`
	sender := identity.Sender{Name: "Acme", Email: "news@acme.example"}
	ws := workspace.Workspace{ID: "0192f5a4-1c2b-7d3e-8f40-123456789abc", Name: "Acme", PostalAddress: "1 Main St, Springfield"}
	verdict := func(html string, ws workspace.Workspace) deliverability.Report {
		t.Helper()
		raw, err := deliverability.Campaign("November at Acme", html, sender, ws)
		if err != nil {
			t.Fatal(err)
		}
		var r deliverability.Report
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := verdict(content, ws); r.Verdict != deliverability.Pass || r.Stats.Links != 2 {
		t.Errorf("%s/%d %+v, %d links; want pass, the content's link and the footer's", r.Verdict, r.Score, r.Checks, r.Stats.Links)
	}
	noAddress := ws
	noAddress.PostalAddress = ""
	if r := verdict(content, noAddress); r.Verdict != deliverability.Pass {
		t.Errorf("without a postal address: %s %+v; want the footer checked all the same", r.Verdict, r.Checks)
	}
	paypal := content + `<p>Pay with PayPal.</p>`
	if r := verdict(paypal, ws); r.Verdict != deliverability.Fail || len(r.Checks) != 1 || r.Checks[0].ID != deliverability.ForeignBrand {
		t.Errorf("naming PayPal: %s %+v; want fail for foreign_brand alone", r.Verdict, r.Checks)
	}
	ws.Brands = []string{"PayPal"}
	if r := verdict(paypal, ws); r.Verdict != deliverability.Pass {
		t.Errorf("naming its own brand PayPal: %s %+v; want pass", r.Verdict, r.Checks)
	}
}

// Merge tags are rendered for a sample contact before the check, as the
// sender renders them for each recipient. Each tag's fallback is a spam
// phrase: the check finds it in the tag's own text, and in the email
// rendered for a contact without a name, so a pass proves it read the
// sample contact's name in both the subject and the body.
func TestDeliverabilityRendersMergeTags(t *testing.T) {
	sender := identity.Sender{Name: "Acme", Email: "news@acme.example"}
	ws := workspace.Workspace{ID: "0192f5a4-1c2b-7d3e-8f40-123456789abc", Name: "Acme", PostalAddress: "1 Main St, Springfield"}
	const subject = `{{ contact.first_name | "act now" }}`
	const rest = `, we shipped faster exports, a calendar view and a cleaner settings page this month.
Each came from your feedback, so thank you for writing to us; the details are on our blog.</p>`
	const html = `<p>Hi {{ contact.first_name | "dear friend" }}` + rest
	for name, in := range map[string]deliverability.Input{
		"subject unrendered": {Subject: subject, HTML: "<p>Hi Alex" + rest},
		"body unrendered":    {Subject: "Alex", HTML: html},
		"fallbacks rendered": {Subject: "act now", HTML: "<p>Hi dear friend" + rest},
	} {
		in.SenderDomain, in.OwnBrands = "acme.example", []string{"Acme"}
		if r := deliverability.Check(in); r.Verdict != deliverability.Warn || !slices.Contains(ids(r), deliverability.SpamPhrases) {
			t.Fatalf("%s: %s %v; the test needs spam_phrases there", name, r.Verdict, ids(r))
		}
	}
	raw, err := deliverability.Campaign(subject, html, sender, ws)
	if err != nil {
		t.Fatal(err)
	}
	var r deliverability.Report
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	if r.Verdict != deliverability.Pass {
		t.Errorf("%s %+v; want pass for the email rendered for the sample contact", r.Verdict, r.Checks)
	}
}
