package automation

import (
	"context"
	"errors"

	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/sending/listmail"
)

// EmailContent renders an automation email's html again from its run's
// version and its contact as the contact is now, as the runner did: the
// owner's view of a sent automation email (email.Views.Content).
type EmailContent struct {
	Runs interface {
		GetRun(ctx context.Context, workspaceID, automationID, runID string) (Run, error)
	}
	Versions interface {
		GetVersion(ctx context.Context, workspaceID, automationID string, version int) ([]Step, error)
	}
	Shown listmail.Shown
}

// RenderHTML is m's html; see email.Renderer.
func (r EmailContent) RenderHTML(ctx context.Context, m email.Email) (string, error) {
	src := m.Source
	run, err := r.Runs.GetRun(ctx, m.WorkspaceID, src.AutomationID, src.RunID)
	if errors.Is(err, ErrRunNotFound) {
		return "", &email.ContentUnavailable{Reason: "its automation run no longer exists"}
	}
	if err != nil {
		return "", err
	}
	steps, err := r.Versions.GetVersion(ctx, m.WorkspaceID, src.AutomationID, run.Version)
	if errors.Is(err, ErrNotFound) || (err == nil && (src.Step < 0 || src.Step >= len(steps))) {
		return "", &email.ContentUnavailable{Reason: "its automation version no longer exists"}
	}
	if err != nil {
		return "", err
	}
	c, ws, err := r.Shown.Recipient(ctx, m)
	if err != nil {
		return "", err
	}
	_, html, err := RenderSend(steps[src.Step], run, c)
	if err != nil {
		return "", &email.ContentUnavailable{Reason: err.Error()}
	}
	return listmail.ShownHTML(Compose(r.Shown.Links(), ws, identity.Sender{}, run, c, m.Subject, html, m.ID))
}
