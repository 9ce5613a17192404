package campaign

import (
	"context"
	"errors"

	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/sending/listmail"
)

// EmailContent renders a campaign email's html again for its contact as
// the contact is now (merge tags included), as the sender did: the
// owner's view of a sent campaign email (email.Views.Content).
type EmailContent struct {
	Campaigns interface {
		GetCampaign(ctx context.Context, workspaceID, id string) (Campaign, error)
	}
	Shown listmail.Shown
}

// RenderHTML is m's html; see email.Renderer.
func (r EmailContent) RenderHTML(ctx context.Context, m email.Email) (string, error) {
	c, err := r.Campaigns.GetCampaign(ctx, m.WorkspaceID, m.Source.CampaignID)
	if errors.Is(err, ErrNotFound) {
		return "", &email.ContentUnavailable{Reason: "its campaign no longer exists"}
	}
	if err != nil {
		return "", err
	}
	to, ws, err := r.Shown.Recipient(ctx, m)
	if err != nil {
		return "", err
	}
	return listmail.ShownHTML(Message(c, ws, r.Shown.Links(), to, m.ID))
}
