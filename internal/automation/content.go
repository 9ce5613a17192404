package automation

import (
	"fmt"

	"github.com/sesame-mail/sesame/internal/compose"
	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/mergetag"
	"github.com/sesame-mail/sesame/internal/sending/listmail"
	"github.com/sesame-mail/sesame/internal/unsubscribe"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// RenderSend is a send step's subject and html for run's contact c, as
// the runner sends them (before the footer); an error says which does
// not render.
func RenderSend(step Step, run Run, c contact.Contact) (subject, html string, err error) {
	vars := varsOf(run, c)
	if subject, err = mergetag.RenderSubject(step.Subject, vars); err != nil {
		return "", "", fmt.Errorf("the subject does not render: %w", err)
	}
	if html, err = mergetag.RenderHTML(step.HTML, vars); err != nil {
		return "", "", fmt.Errorf("the html does not render: %w", err)
	}
	return subject, html, nil
}

// Compose is the message a send step of run sends c (its rendered subject
// and html), with the footer and the one-click unsubscribe headers: the
// runner's and the owner's view of an automation email
// (email.Views.Content) are both this.
func Compose(links listmail.Links, ws workspace.Workspace, from identity.Sender, run Run, c contact.Contact, subject, html, emailID string) (compose.Message, error) {
	return listmail.WithUnsubscribe(links, ws, from, compose.Message{
		From: from.Address(), To: c.Email, ReplyTo: from.ReplyTo, Subject: subject, HTML: html, EmailID: emailID,
	}, unsubscribe.Token{WorkspaceID: run.WorkspaceID, ContactID: c.ID, Source: unsubscribe.Source{Kind: unsubscribe.SourceAutomation, ID: run.AutomationID}})
}

// varsOf are the values a run's content reads: its frozen payload and
// the contact now.
func varsOf(run Run, c contact.Contact) mergetag.Vars {
	v := mergetag.ContactVars(c)
	v.Event = run.Payload
	return v
}
