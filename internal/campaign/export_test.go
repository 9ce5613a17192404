package campaign

import (
	"context"

	"github.com/sesame-mail/sesame/internal/workspace"
)

// VerdictOf exposes the draft's verdict to the tests.
func VerdictOf(d *Drafts, ctx context.Context, c Campaign) Verdict {
	return d.verdict(ctx, c, workspace.Workspace{})
}
