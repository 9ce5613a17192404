package sending

import (
	"testing"

	"github.com/sesame-mail/sesame/internal/review"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// A workspace owns its name, its --brands and its verified domains: an
// email naming any of them is not held as impersonation.
func TestOwnBrands(t *testing.T) {
	const subject = "Your Stripe receipt"
	cases := map[string]struct {
		ws      workspace.Workspace
		cleared bool
	}{
		"workspace name":  {ws: workspace.Workspace{Name: "Stripe"}, cleared: true},
		"brands setting":  {ws: workspace.Workspace{Name: "Acme", Brands: []string{"Stripe"}}, cleared: true},
		"verified domain": {ws: workspace.Workspace{Name: "Acme", VerifiedDomains: []string{"mail.stripe.com"}}, cleared: true},
		"none of them":    {ws: workspace.Workspace{Name: "Acme", Brands: []string{"Acme"}, VerifiedDomains: []string{"acme.test"}}, cleared: false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := review.BrandCheck(subject, "<p>Thanks</p>", tc.ws.OwnBrands()).Cleared; got != tc.cleared {
				t.Errorf("cleared = %v, want %v", got, tc.cleared)
			}
		})
	}
}
