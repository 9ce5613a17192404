// Package bulk declares the functions of the bulk routes: the draft
// (POST /send/bulk) and the campaign routes (list, get, cancel). Each
// builds the DynamoDB client, the key lookup and the repositories its
// route uses; none reaches SES or a queue: a draft sends nothing.
package bulk

import (
	"encoding/json"
	"log/slog"

	"github.com/sesame-mail/sesame/internal/api/audience"
	"github.com/sesame-mail/sesame/internal/api/tableroutes"
	"github.com/sesame-mail/sesame/internal/campaign"
	"github.com/sesame-mail/sesame/internal/campaign/campaignhttp"
	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/deliverability"
	"github.com/sesame-mail/sesame/internal/dynamo"
	"github.com/sesame-mail/sesame/internal/httpapi"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/routes"
	"github.com/sesame-mail/sesame/internal/unsubscribe"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// The bulk routes' functions; the list signs its cursors.
var (
	SendBulk       = tableroutes.Read(routes.SendBulk, campaigns)
	ListCampaigns  = tableroutes.List(routes.ListCampaigns, campaigns)
	GetCampaign    = tableroutes.Read(routes.GetCampaign, campaigns)
	CancelCampaign = tableroutes.Read(routes.CancelCampaign, campaigns)
)

func campaigns(t *dynamo.Table, c httpapi.Cursors, logger *slog.Logger) []httpapi.Route {
	return Handlers(t, c, logger).Routes()
}

// Handlers serves the bulk routes over t.
func Handlers(t *dynamo.Table, c httpapi.Cursors, logger *slog.Logger) campaignhttp.Handlers {
	store := &dynamo.Campaigns{Table: t}
	return campaignhttp.Handlers{
		Drafts: &campaign.Drafts{
			Store: store, Workspaces: &dynamo.Workspaces{Table: t}, Segments: &dynamo.Segments{Table: t},
			Resolver: audience.Resolver(t), Check: Deliverability, Logger: logger,
		},
		Campaigns: &campaign.Service{Store: store},
		Cursors:   c,
	}
}

// Deliverability is the deliverability check of a campaign's content as
// its recipients will get it: composed as the campaign sender composes
// each email (listmail.WithUnsubscribe: the footer with the workspace's
// postal address and unsubscribe link, List-Unsubscribe and its one-click
// header), and checked with the workspace's brands. The draft's function
// cannot know the stack's public URL (the API's own address), so the
// links are built on a stand-in of it, which the check counts as
// Sesame's own, as it would the real one.
func Deliverability(subject, html string, sender identity.Sender, ws workspace.Workspace) (campaign.Verdict, error) {
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
	return json.Marshal(deliverability.CheckMessage(m, deliverability.Context{
		Bulk: true, OwnBrands: ws.OwnBrands(), Own: []string{standInLinks.BaseURL},
	}))
}

// sampleRecipient is the contact a draft's check renders the merge tags
// for, as the campaign sender renders them for each recipient.
var sampleRecipient = contact.Contact{ID: sampleID, Email: "alex.sample@example.com", FirstName: ptr("Alex"), LastName: ptr("Sample")}

func ptr(s string) *string { return &s }

// sampleID stands for the recipient's contact and the campaign in the
// stand-in unsubscribe link (tokens carry UUIDs).
const sampleID = "00000000-0000-7000-8000-000000000000"

// standInLinks builds unsubscribe links as the sender does, on a stand-in
// of the stack's public URL and secret: only their place in the email
// matters to the check.
var standInLinks = unsubscribe.Links{BaseURL: "https://sesame.invalid", Signer: unsubscribe.Signer{Secret: []byte("deliverability check")}}
