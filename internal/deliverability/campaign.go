package deliverability

import (
	"encoding/json"

	"github.com/sesame-mail/sesame/internal/identity"
)

// Campaign is the check of a campaign's content, as JSON for its draft
// (a campaign.Checker): bulk mail to which Sesame adds its footer and
// List-Unsubscribe.
func Campaign(subject, html string, sender identity.Sender) (json.RawMessage, error) {
	return json.Marshal(Check(Input{
		Subject: subject, HTML: html, SenderDomain: identity.DomainOf(sender.Email), Bulk: true, FooterAdded: true,
	}))
}
