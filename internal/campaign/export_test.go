package campaign

import (
	"context"

	"github.com/sesame-mail/sesame/internal/identity"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// VerdictOf exposes the draft's verdict to the tests.
func VerdictOf(d *Drafts, ctx context.Context, c Campaign) Verdict {
	return d.verdict(ctx, c, workspace.Workspace{})
}

// SenderOf exposes the draft's sender choice to the tests.
func SenderOf(d *Drafts, ctx context.Context, ws workspace.Workspace, id string) (identity.Sender, error) {
	return d.sender(ctx, ws, id)
}
