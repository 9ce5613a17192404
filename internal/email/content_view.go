package email

import (
	"context"
	"errors"
	"fmt"

	"github.com/sesame-mail/sesame/internal/compose"
)

// Renderer renders a campaign or automation email's html again from what
// it was rendered from (its Source) and its contact as they are now, with
// the sender's own composition and the footer. What cannot be shown is a
// *ContentUnavailable.
type Renderer interface {
	RenderHTML(ctx context.Context, m Email) (string, error)
}

// ContentUnavailable is the content of an email that cannot be shown,
// and why; it is ErrContentNotKept.
type ContentUnavailable struct{ Reason string }

func (e *ContentUnavailable) Error() string { return "content not shown: " + e.Reason }

// Is makes it ErrContentNotKept.
func (e *ContentUnavailable) Is(target error) bool { return target == ErrContentNotKept }

// Content is an email's content as it went: its subject, html, text part
// (derived from the html by compose.HTMLToText, as the sender writes it)
// and attachments. A transactional email's is what its send kept; a
// campaign's or an automation's is rendered again (Campaigns,
// Automations), its unsubscribe link a stand-in that unsubscribes no one.
// What cannot be shown is a *ContentUnavailable.
func (v *Views) Content(ctx context.Context, workspaceID, emailID string) (Content, error) {
	m, err := v.Get(ctx, workspaceID, emailID)
	if err != nil {
		return Content{}, err
	}
	out := Content{Subject: m.Subject}
	switch src := m.Source; {
	case m.Type == TypeCampaign && src.CampaignID != "":
		out.HTML, err = v.Campaigns.RenderHTML(ctx, m)
	case m.Type == TypeAutomation && src.AutomationID != "":
		out.HTML, err = v.Automations.RenderHTML(ctx, m)
	case m.Type == TypeTransactional:
		var kept KeptContent
		kept, err = v.Kept.GetContent(ctx, m.WorkspaceID, m.ID)
		if errors.Is(err, ErrContentNotKept) {
			err = &ContentUnavailable{Reason: fmt.Sprintf("a transactional email's content is kept %d days after it is sent", int(ContentKept.Hours()/24))}
		}
		out.HTML, out.Attachments = kept.HTML, kept.Attachments
		if err == nil && out.HTML == "" {
			return out, &ContentUnavailable{Reason: "its html was too large to keep; its attachments are listed"}
		}
	default:
		err = &ContentUnavailable{Reason: "it was sent before Sesame recorded what a campaign or automation email was rendered from"}
	}
	if err != nil {
		return Content{Subject: m.Subject}, err
	}
	out.Text = compose.HTMLToText(out.HTML)
	return out, nil
}
