package deliverability_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/compose"
	"github.com/sesame-mail/sesame/internal/deliverability"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/sending/listmail"
	"github.com/sesame-mail/sesame/internal/unsubscribe"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// campaignHTML passes every rule on its own: a bulk email without its
// unsubscribe link, which Sesame's footer adds.
const campaignHTML = `<html><body><h1>November at Acme</h1>
<p>We shipped faster exports, a calendar view and a cleaner settings page. Each of them came from your
feedback, so thank you for writing to us. The details are on our blog, with screenshots and a short video.</p>
<p><a href="https://www.acme.example/blog/november">Read the November notes</a></p></body></html>`

// composed is campaignHTML as the campaign sender composes it, with the
// stack's public URL base.
func composed(t *testing.T, base, html string) compose.Message {
	t.Helper()
	sender := identity.Sender{Name: "Acme", Email: "news@acme.example"}
	ws := workspace.Workspace{ID: "0192f5a4-1c2b-7d3e-8f40-123456789abc", Name: "Acme", PostalAddress: "1 Main St, Springfield"}
	m, err := listmail.WithUnsubscribe(unsubscribe.Links{BaseURL: base, Signer: unsubscribe.Signer{Secret: []byte("s")}}, ws, sender,
		compose.Message{From: sender.Address(), To: "ann@example.org", Subject: "November at Acme", HTML: html},
		unsubscribe.Token{WorkspaceID: ws.ID, ContactID: "0192f5a4-1c2b-7d3e-8f40-000000000001", Source: unsubscribe.Source{Kind: unsubscribe.SourceCampaign, ID: "0192f5a4-1c2b-7d3e-8f40-000000000002"}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// A campaign is checked as it will be sent: Sesame's footer gives it its
// unsubscribe link and one-click headers, and the footer's link on the
// stack's own address (a loopback IP locally, execute-api in AWS) is not
// a finding.
func TestCheckMessageAsSent(t *testing.T) {
	for name, base := range map[string]string{
		"local stack": "http://127.0.0.1:8787",
		"execute-api": "https://abc123xyz.execute-api.eu-west-1.amazonaws.com/prod",
	} {
		t.Run(name, func(t *testing.T) {
			m := composed(t, base, campaignHTML)
			r := deliverability.CheckMessage(m, deliverability.Context{Bulk: true, OwnBrands: []string{"Acme"}, Own: []string{base}})
			if r.Verdict != deliverability.Pass || len(r.Checks) != 0 {
				t.Errorf("%s/%d %+v, want pass without findings", r.Verdict, r.Score, r.Checks)
			}
			if r.Stats.Links != 2 || !strings.Contains(m.HTML, base+"/unsubscribe/") {
				t.Errorf("links %d, want the content's and the footer's", r.Stats.Links)
			}
			// Without knowing the stack's address, the same footer link is
			// a stranger's: what the check said before.
			stranger := deliverability.CheckMessage(m, deliverability.Context{Bulk: true, OwnBrands: []string{"Acme"}})
			if len(stranger.Checks) == 0 {
				t.Errorf("the footer link on %s is no finding even as a stranger's link", base)
			}
		})
	}
}

// Only links under the stack's base URL are its own: another host, or
// another path of a base with one, is checked like any link.
func TestOwnLinksAreTheStacks(t *testing.T) {
	const base = "https://abc123xyz.execute-api.eu-west-1.amazonaws.com/prod"
	check := func(href string) deliverability.Report {
		return deliverability.CheckMessage(composed(t, base, campaignHTML+`<p><a href="`+href+`">More</a></p>`),
			deliverability.Context{Bulk: true, Own: []string{base}})
	}
	for _, own := range []string{base + "/dashboard/campaigns", "http://ABC123XYZ.execute-api.eu-west-1.amazonaws.com/prod/unsubscribe/x"} {
		if r := check(own); len(r.Checks) != 0 {
			t.Errorf("%s: findings %+v, want none (Sesame's own)", own, r.Checks)
		}
	}
	for _, other := range []string{"https://other.execute-api.eu-west-1.amazonaws.com/prod/x", "https://abc123xyz.execute-api.eu-west-1.amazonaws.com/production/x", "http://127.0.0.1:8787/x"} {
		if r := check(other); len(r.Checks) == 0 {
			t.Errorf("%s: no finding, want it checked as a stranger's link", other)
		}
	}
}

// The check holds what /send's review holds, through the same code: a
// brand the workspace does not own is critical, one it owns is nothing.
func TestCheckMessageSharesTheReview(t *testing.T) {
	m := composed(t, "http://127.0.0.1:8787", strings.Replace(campaignHTML, "Read the November notes", "Pay with PayPal", 1))
	ctx := deliverability.Context{Bulk: true, OwnBrands: []string{"Acme"}, Own: []string{"http://127.0.0.1:8787"}}
	if r := deliverability.CheckMessage(m, ctx); r.Verdict != deliverability.Fail || !slices.Contains(ids(r), deliverability.ForeignBrand) {
		t.Errorf("%s %+v, want fail for foreign_brand", r.Verdict, r.Checks)
	}
	ctx.OwnBrands = append(ctx.OwnBrands, "paypal.com")
	if r := deliverability.CheckMessage(m, ctx); r.Verdict != deliverability.Pass {
		t.Errorf("%s %+v, want pass for an owned brand", r.Verdict, r.Checks)
	}
}
