package sending

import (
	"context"

	"github.com/sesame-mail/sesame/internal/emailtemplate"
	"github.com/sesame-mail/sesame/internal/review"
)

// LayoutReviews are the security review's verdicts on layouts, as stored
// templates see them: a version saved is reviewed at once, with the check
// and the record a held send's first review would make, so a send of it
// goes out without a hold.
type LayoutReviews struct {
	Held HeldStore
}

// ReviewLayout decides html's layout if nobody has: a verdict already
// recorded (by an earlier review, or the owner's) stands.
func (l LayoutReviews) ReviewLayout(ctx context.Context, workspaceID, html string) (emailtemplate.Review, error) {
	fp := review.Fingerprint(html)
	tpl, err := l.Held.GetTemplate(ctx, workspaceID, fp)
	if err != nil {
		return emailtemplate.Review{}, err
	}
	tpl, err = decideLayout(ctx, l.Held, workspaceID, tpl, html)
	return reviewOf(tpl), err
}

// decideLayout runs the layout check on a pending template (html is an
// email of it) and records the verdict; one decided meanwhile, by another
// review or the owner, stands and is returned instead.
func decideLayout(ctx context.Context, held HeldStore, workspaceID string, tpl Template, html string) (Template, error) {
	if tpl.State != TemplatePending {
		return tpl, nil
	}
	v := review.CheckLayout(html)
	state := TemplateDenied
	if v.Cleared {
		state = TemplateCleared
	}
	decided, err := held.DecideTemplate(ctx, workspaceID, tpl.Fingerprint, state, v.Reasons, true)
	if err != nil {
		return Template{}, err
	}
	if !decided {
		return held.GetTemplate(ctx, workspaceID, tpl.Fingerprint)
	}
	return Template{Fingerprint: tpl.Fingerprint, State: state, Reasons: v.Reasons}, nil
}

// LayoutReview reads where a layout is in the review.
func (l LayoutReviews) LayoutReview(ctx context.Context, workspaceID, fingerprint string) (emailtemplate.Review, error) {
	tpl, err := l.Held.GetTemplate(ctx, workspaceID, fingerprint)
	return reviewOf(tpl), err
}

func reviewOf(t Template) emailtemplate.Review {
	return emailtemplate.Review{State: emailtemplate.ReviewState(t.State), Reasons: t.Reasons}
}
