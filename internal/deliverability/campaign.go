package deliverability

import (
	"encoding/json"

	"github.com/sesame-mail/sesame/internal/campaign"
	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/unsubscribe"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// Campaign is the check of a campaign's content as its recipients will
// get it, as JSON for its draft (a campaign.Checker): composed by
// campaign.Message as the sender composes each email (merge tags rendered
// for a sample contact, the footer with the workspace's postal address
// and unsubscribe link, List-Unsubscribe and its one-click header), and
// checked with the workspace's brands. The draft's function cannot know
// the stack's public URL (the API's own address), so the links are built
// on a stand-in of it, which the check counts as Sesame's own, as it
// would the real one.
func Campaign(subject, html string, sender identity.Sender, ws workspace.Workspace) (campaign.Verdict, error) {
	if ws.PostalAddress == "" {
		// Approval refuses such a campaign until the address is set;
		// meanwhile the footer is checked with a stand-in.
		ws.PostalAddress = "(the workspace's postal address)"
	}
	c := campaign.Campaign{ID: sampleID, WorkspaceID: ws.ID, Subject: subject, HTML: html, Sender: sender}
	m, err := campaign.Message(c, ws, standInLinks, sampleRecipient, "")
	if err != nil {
		return nil, err
	}
	return json.Marshal(CheckMessage(m, Context{Bulk: true, OwnBrands: ws.OwnBrands(), Own: []string{standInLinks.BaseURL}}))
}

// sampleRecipient is the contact a draft's check renders the merge tags
// for, as the campaign sender renders them for each recipient.
var sampleRecipient = contact.Sample

// sampleID stands for the recipient's contact and the campaign in the
// stand-in unsubscribe link (tokens carry UUIDs).
const sampleID = "00000000-0000-7000-8000-000000000000" // contact.Sample's

// standInLinks builds unsubscribe links as the sender does, on a stand-in
// of the stack's public URL and secret: only their place in the email
// matters to the check.
var standInLinks = unsubscribe.Links{BaseURL: "https://sesame.invalid", Signer: unsubscribe.Signer{Secret: []byte("deliverability check")}}
