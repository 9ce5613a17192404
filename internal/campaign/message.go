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
	subject, html, err := render(c, to)
	if err != nil {
		return compose.Message{}, err
	}
	msg := compose.Message{
		From: c.Sender.Address(), To: to.Email, ReplyTo: c.Sender.ReplyTo, Subject: subject, HTML: html, EmailID: emailID,
	}
	return listmail.WithUnsubscribe(links, ws, c.Sender, msg, unsubscribe.Token{
		WorkspaceID: c.WorkspaceID, ContactID: to.ID, Source: unsubscribe.Source{Kind: unsubscribe.SourceCampaign, ID: c.ID},
	})
}

// Render is c's subject and html rendered for to, without the footer;
// content the language refuses is given as it is.
func Render(c Campaign, to contact.Contact) (subject, html string) {
	subject, html, err := render(c, to)
	if err != nil {
		return c.Subject, c.HTML
	}
	return subject, html
}

func render(c Campaign, to contact.Contact) (subject, html string, err error) {
	s, err := mergetag.Parse(c.Subject, mergetag.Contact)
	if err != nil {
		return "", "", fmt.Errorf("%w: subject: %v", compose.ErrInvalid, err)
	}
	h, err := mergetag.Parse(c.HTML, mergetag.Contact)
	if err != nil {
		return "", "", fmt.Errorf("%w: html: %v", compose.ErrInvalid, err)
	}
	vars := mergetag.ContactVars(to)
	return s.Subject(vars), h.HTML(vars), nil
}
