package campaign

import (
	"fmt"

	"github.com/sesame-mail/sesame/internal/compose"
	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/mergetag"
	"github.com/sesame-mail/sesame/internal/sending/listmail"
	"github.com/sesame-mail/sesame/internal/unsubscribe"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// Message is the email c sends to: its subject and html rendered for to
// (merge tags), with the footer and the one-click unsubscribe of c. The
// sender sends it and the approver previews it, so both see one thing.
// Content the language refuses (a campaign drafted before it was
// checked) wraps compose.ErrInvalid, as any unsendable message does.
func Message(c Campaign, ws workspace.Workspace, links listmail.Links, to contact.Contact, emailID string) (compose.Message, error) {
	subject, err := mergetag.Parse(c.Subject, mergetag.Contact)
	if err != nil {
		return compose.Message{}, fmt.Errorf("%w: subject: %v", compose.ErrInvalid, err)
	}
	html, err := mergetag.Parse(c.HTML, mergetag.Contact)
	if err != nil {
		return compose.Message{}, fmt.Errorf("%w: html: %v", compose.ErrInvalid, err)
	}
	vars := mergetag.ContactVars(to)
	msg := compose.Message{
		From: c.Sender.Address(), To: to.Email, ReplyTo: c.Sender.ReplyTo,
		Subject: subject.Subject(vars), HTML: html.HTML(vars), EmailID: emailID,
	}
	return listmail.WithUnsubscribe(links, ws, c.Sender, msg, unsubscribe.Token{
		WorkspaceID: c.WorkspaceID, ContactID: to.ID, Source: unsubscribe.Source{Kind: unsubscribe.SourceCampaign, ID: c.ID},
	})
}
