package sending

import (
	"testing"

	"github.com/sesame-mail/sesame/internal/review"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// A workspace owns its name, its --brands and the registrable names of its
// verified domains: an email naming any of them is not held as
// impersonation (review.Check with workspace.OwnBrands, as Reviewer and
// plan run it).
func TestOwnBrands(t *testing.T) {
	const stripe = "Your Stripe receipt"
	cases := map[string]struct {
		subject string
		ws      workspace.Workspace
		cleared bool
	}{
		"workspace name":  {subject: stripe, ws: workspace.Workspace{Name: "Stripe"}, cleared: true},
		"brands setting":  {subject: stripe, ws: workspace.Workspace{Name: "Acme", Brands: []string{"Stripe"}}, cleared: true},
		"verified domain": {subject: stripe, ws: workspace.Workspace{Name: "Acme", VerifiedDomains: []string{"mail.stripe.com"}}, cleared: true},
		"none of them":    {subject: stripe, ws: workspace.Workspace{Name: "Acme", Brands: []string{"Acme"}, VerifiedDomains: []string{"acme.test"}}, cleared: false},
		// A domain that merely contains a brand does not own it.
		"pineapple.shop does not own apple": {subject: "Your Apple ID", ws: workspace.Workspace{Name: "Acme", VerifiedDomains: []string{"pineapple.shop"}}, cleared: false},
		"groupsoft.io does not own ups":     {subject: "UPS: parcel waiting", ws: workspace.Workspace{Name: "Acme", VerifiedDomains: []string{"groupsoft.io"}}, cleared: false},
		// A domain owns a brand only by its registrable name.
		"netflix.co.uk owns netflix":                  {subject: "Your Netflix plan", ws: workspace.Workspace{Name: "Acme", VerifiedDomains: []string{"netflix.co.uk"}}, cleared: true},
		"netflix-payments-update.com does not own it": {subject: "Your Netflix membership is on hold", ws: workspace.Workspace{Name: "Acme", VerifiedDomains: []string{"netflix-payments-update.com"}}, cleared: false},
		"netflixhelp.net does not own netflix":        {subject: "Your Netflix plan", ws: workspace.Workspace{Name: "Acme", VerifiedDomains: []string{"netflixhelp.net"}}, cleared: false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := review.Check(tc.subject, "<p>Thanks</p>", tc.ws.OwnBrands()).Cleared; got != tc.cleared {
				t.Errorf("cleared = %v, want %v", got, tc.cleared)
			}
		})
	}
}
