package owner

import (
	"context"
	"errors"
	"fmt"

	"github.com/sesame-mail/sesame/internal/automation"
	"github.com/sesame-mail/sesame/internal/campaign"
	"github.com/sesame-mail/sesame/internal/compose"
	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// ContentSources are where an email's content is read or rendered from:
// a transactional email's kept content; a campaign's html, or an
// automation run's version, rendered again for the email's contact.
type ContentSources struct {
	Kept interface {
		GetContent(ctx context.Context, workspaceID, emailID string) (email.KeptContent, error)
	}
	Campaigns interface {
		GetCampaign(ctx context.Context, workspaceID, id string) (campaign.Campaign, error)
	}
	Runs interface {
		GetRun(ctx context.Context, workspaceID, automationID, runID string) (automation.Run, error)
	}
	Versions interface {
		GetVersion(ctx context.Context, workspaceID, automationID string, version int) ([]automation.Step, error)
	}
	Contacts   ContactReader
	Workspaces workspace.Reader
}

// ContentUnavailable is the content of an email that cannot be shown,
// and why; it is email.ErrContentNotKept.
type ContentUnavailable struct{ Reason string }

func (e *ContentUnavailable) Error() string { return "content not shown: " + e.Reason }

// Is makes it email.ErrContentNotKept.
func (e *ContentUnavailable) Is(target error) bool { return target == email.ErrContentNotKept }

// Content is an email's content as it went: its subject, html, text part
// (derived from the html by compose.HTMLToText, as the sender writes it)
// and attachments. A transactional email's is what its send kept; a
// campaign's or an automation's is rendered again by the sender's own
// composition (campaign.Message, automation.Compose) from the campaign or
// the run's version and the contact as they are now, with the footer; its
// unsubscribe link is the approval preview's stand-in (PreviewLinks over
// PublicURL), shaped as the recipient's but unsubscribing no one. What
// cannot be shown is a *ContentUnavailable.
func (e *Emails) Content(ctx context.Context, workspaceID, emailID string) (email.Content, error) {
	m, err := e.get(ctx, workspaceID, emailID)
	if err != nil {
		return email.Content{}, err
	}
	out := email.Content{Subject: m.Subject}
	switch src := m.Source; {
	case m.Type == email.TypeCampaign && src.CampaignID != "":
		out.HTML, err = e.campaignHTML(ctx, m)
	case m.Type == email.TypeAutomation && src.AutomationID != "":
		out.HTML, err = e.automationHTML(ctx, m)
	case m.Type == email.TypeTransactional:
		var kept email.KeptContent
		kept, err = e.Sources.Kept.GetContent(ctx, m.WorkspaceID, m.ID)
		if errors.Is(err, email.ErrContentNotKept) {
			err = &ContentUnavailable{Reason: fmt.Sprintf("a transactional email's content is kept %d days after it is sent", int(email.ContentKept.Hours()/24))}
		}
		out.HTML, out.Attachments = kept.HTML, kept.Attachments
		if err == nil && out.HTML == "" {
			return out, &ContentUnavailable{Reason: "its html was too large to keep; its attachments are listed"}
		}
	default:
		err = &ContentUnavailable{Reason: "it was sent before Sesame recorded what a campaign or automation email was rendered from"}
	}
	if err != nil {
		return email.Content{Subject: m.Subject}, err
	}
	out.Text = compose.HTMLToText(out.HTML)
	return out, nil
}

// links are the unsubscribe links of a shown campaign or automation
// email: the recipient's own link is a bearer token that would unsubscribe
// the contact for whoever follows it, and the owner's surfaces hold no
// unsubscribe secret, so the approval preview's stand-in is shown.
func (e *Emails) links() PreviewLinks { return PreviewLinks{BaseURL: e.PublicURL} }

// campaignHTML renders a campaign email's html again for its contact as
// the contact is now (merge tags included), as the sender did.
func (e *Emails) campaignHTML(ctx context.Context, m email.Email) (string, error) {
	c, err := e.Sources.Campaigns.GetCampaign(ctx, m.WorkspaceID, m.Source.CampaignID)
	if errors.Is(err, campaign.ErrNotFound) {
		return "", &ContentUnavailable{Reason: "its campaign no longer exists"}
	}
	if err != nil {
		return "", err
	}
	to, ws, err := e.renderedFor(ctx, m)
	if err != nil {
		return "", err
	}
	msg, err := campaign.Message(c, ws, e.links(), to, m.ID)
	return rendered(msg, err)
}

// renderedFor reads the contact m was rendered for (its source's) and
// its workspace, as the sender and the runner read them.
func (e *Emails) renderedFor(ctx context.Context, m email.Email) (contact.Contact, workspace.Workspace, error) {
	to, err := e.Sources.Contacts.GetContact(ctx, m.WorkspaceID, m.Source.ContactID)
	if errors.Is(err, contact.ErrNotFound) {
		return contact.Contact{}, workspace.Workspace{}, &ContentUnavailable{Reason: "its contact was deleted, and the content is rendered for the contact"}
	}
	if err != nil {
		return contact.Contact{}, workspace.Workspace{}, err
	}
	ws, err := e.Sources.Workspaces.GetWorkspace(ctx, m.WorkspaceID)
	return to, ws, err
}

// automationHTML renders an automation email's html again from its run's
// version and the contact, as the runner did.
func (e *Emails) automationHTML(ctx context.Context, m email.Email) (string, error) {
	src := m.Source
	run, err := e.Sources.Runs.GetRun(ctx, m.WorkspaceID, src.AutomationID, src.RunID)
	if errors.Is(err, automation.ErrRunNotFound) {
		return "", &ContentUnavailable{Reason: "its automation run no longer exists"}
	}
	if err != nil {
		return "", err
	}
	steps, err := e.Sources.Versions.GetVersion(ctx, m.WorkspaceID, src.AutomationID, run.Version)
	if errors.Is(err, automation.ErrNotFound) || (err == nil && (src.Step < 0 || src.Step >= len(steps))) {
		return "", &ContentUnavailable{Reason: "its automation version no longer exists"}
	}
	if err != nil {
		return "", err
	}
	c, ws, err := e.renderedFor(ctx, m)
	if err != nil {
		return "", err
	}
	_, html, err := automation.RenderSend(steps[src.Step], run, c)
	if err != nil {
		return "", &ContentUnavailable{Reason: err.Error()}
	}
	msg, err := automation.Compose(e.links(), ws, identity.Sender{}, run, c, m.Subject, html, m.ID)
	return rendered(msg, err)
}

// rendered is a composed message's html; a composition the sender would
// have refused (no postal address now) is shown as unavailable.
func rendered(msg compose.Message, err error) (string, error) {
	if errors.Is(err, compose.ErrInvalid) {
		return "", &ContentUnavailable{Reason: "it does not compose now: " + err.Error()}
	}
	return msg.HTML, err
}
