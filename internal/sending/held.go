package sending

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/ident"
	"github.com/sesame-mail/sesame/internal/review"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// HeldDecisions reads held emails, finds those held with a template, and
// keeps the security review's verdict on each template.
type HeldDecisions interface {
	GetHeld(ctx context.Context, workspaceID, emailID string) (HeldEmail, error)
	ListHeld(ctx context.Context, workspaceID, fingerprint string) ([]string, error)
	GetTemplate(ctx context.Context, workspaceID, fingerprint string) (Template, error)
	DecideTemplate(ctx context.Context, workspaceID, fingerprint string, state TemplateState, reasons []string, onlyIfPending bool) (bool, error)
}

// ErrNoReviewQueue refuses a clear or deny when no review queue is wired:
// the review function releases held email, not the owner's surface.
var ErrNoReviewQueue = errors.New("no review queue to release held email")

// Held is the owner's side of the security review (the console and the
// dashboard): the emails it holds, and the owner's clear or deny of one,
// which the review queue carries to the Reviewer. An API key never
// reaches it.
type Held struct {
	Emails email.Lister
	Store  HeldDecisions
	// Workspaces gives the brands an email may name (List's reasons).
	Workspaces workspace.Reader
	// Review carries held emails to the review function, which sends or
	// fails them; nil where no review queue is configured.
	Review Enqueuer
}

// HeldEntry is a held email and why the review holds it.
type HeldEntry struct {
	email.Email
	// Reasons say why, in the review's words (e.g. "names a brand the
	// workspace does not own: PayPal").
	Reasons []string
}

// List returns every email the review holds, newest first, with why it is
// held. An email released while the list is read is left out.
func (h *Held) List(ctx context.Context, workspaceID string) ([]HeldEntry, error) {
	emails, err := email.ListAll(ctx, h.Emails, workspaceID, email.Filter{Status: email.StatusHeld})
	if err != nil || len(emails) == 0 {
		return []HeldEntry{}, err
	}
	ws, err := h.Workspaces.GetWorkspace(ctx, workspaceID)
	if err != nil {
		return nil, err
	}
	templates := map[string]Template{}
	out := make([]HeldEntry, 0, len(emails))
	for _, e := range emails {
		held, err := h.Store.GetHeld(ctx, workspaceID, e.ID)
		if errors.Is(err, ErrNotHeld) {
			continue // released meanwhile
		}
		if err != nil {
			return nil, fmt.Errorf("email %s: %w", e.ID, err)
		}
		tpl, ok := templates[held.Fingerprint]
		if !ok {
			if tpl, err = h.Store.GetTemplate(ctx, workspaceID, held.Fingerprint); err != nil {
				return nil, fmt.Errorf("email %s: %w", e.ID, err)
			}
			templates[held.Fingerprint] = tpl
		}
		out = append(out, HeldEntry{Email: e, Reasons: holdReasons(tpl, held.Request, ws)})
	}
	return out, nil
}

// HeldShown is a held email as the owner looks at it before clearing or
// denying it: why it is held and the content the review holds.
type HeldShown struct {
	HeldEntry
	HTML string
}

// Show reads one held email; an email not held (released, or another
// workspace's) is ErrNotHeld.
func (h *Held) Show(ctx context.Context, workspaceID, emailID string) (HeldShown, error) {
	if err := ident.RequireWorkspace(workspaceID); err != nil {
		return HeldShown{}, err
	}
	held, err := h.Store.GetHeld(ctx, workspaceID, emailID)
	if err != nil {
		return HeldShown{}, fmt.Errorf("email %s: %w", emailID, err)
	}
	tpl, err := h.Store.GetTemplate(ctx, workspaceID, held.Fingerprint)
	if err != nil {
		return HeldShown{}, fmt.Errorf("email %s: %w", emailID, err)
	}
	ws, err := h.Workspaces.GetWorkspace(ctx, workspaceID)
	if err != nil {
		return HeldShown{}, err
	}
	return HeldShown{HeldEntry: HeldEntry{Email: held.Email, Reasons: holdReasons(tpl, held.Request, ws)}, HTML: held.Request.HTML}, nil
}

// holdReasons says why an email is held, from what the review records:
// its template's verdict and, once the template is cleared, the email's own
// check (brands, links, markup), run on the held content as the review
// runs it, so the reasons are never older than the workspace's settings.
func holdReasons(tpl Template, req Request, ws workspace.Workspace) []string {
	switch tpl.State {
	case TemplatePending:
		return []string{"new template: its first security review is pending (it runs within seconds of the send; or clear or deny it)"}
	case TemplateDenied:
		reason := "its template was denied by the security review"
		if len(tpl.Reasons) > 0 {
			reason += ": " + strings.Join(tpl.Reasons, "; ")
		}
		return []string{reason + " (the email fails at its review)"}
	}
	if v := review.Check(req.Subject, req.HTML, ws.OwnBrands()); !v.Cleared {
		return v.Reasons
	}
	return []string{"its template is cleared and its own check passes now: the review sends it, or clear it"}
}

// Clear sends the email: the owner vouches for it. See decide.
func (h *Held) Clear(ctx context.Context, workspaceID, emailID string) error {
	return h.decide(ctx, workspaceID, emailID, true)
}

// Deny fails the email: it is never sent. See decide.
func (h *Held) Deny(ctx context.Context, workspaceID, emailID string) error {
	return h.decide(ctx, workspaceID, emailID, false)
}

// decide records the owner's verdict and queues the review that carries
// it out. While the email's template is undecided (or when the owner
// clears a denied one), the verdict is the template's, and every email
// held with it is queued for review under it, the one the owner looked at
// vouched for (cleared) or denied. Otherwise the email was held for
// reasons of its own (a foreign brand, a deceptive link), and the verdict
// is about it alone; a denied template stays denied.
func (h *Held) decide(ctx context.Context, workspaceID, emailID string, cleared bool) error {
	if err := ident.RequireWorkspace(workspaceID); err != nil {
		return err
	}
	if h.Review == nil {
		return ErrNoReviewQueue
	}
	held, err := h.Store.GetHeld(ctx, workspaceID, emailID)
	if err != nil {
		return fmt.Errorf("email %s: %w", emailID, err)
	}
	tpl, err := h.Store.GetTemplate(ctx, workspaceID, held.Fingerprint)
	if err != nil {
		return fmt.Errorf("email %s: %w", emailID, err)
	}
	one := ReviewMessage{WorkspaceID: workspaceID, EmailID: emailID, Fingerprint: held.Fingerprint, Vouched: cleared, Denied: !cleared}
	if tpl.State == TemplateCleared || (tpl.State == TemplateDenied && !cleared) {
		return h.Review.Enqueue(ctx, one)
	}
	state, reasons := TemplateCleared, []string(nil)
	if !cleared {
		state, reasons = TemplateDenied, []string{"denied by the workspace owner"}
	}
	if _, err := h.Store.DecideTemplate(ctx, workspaceID, held.Fingerprint, state, reasons, false); err != nil {
		return err
	}
	ids, err := h.Store.ListHeld(ctx, workspaceID, held.Fingerprint)
	if err != nil {
		return err
	}
	var errs []error
	for _, id := range ids {
		m := ReviewMessage{WorkspaceID: workspaceID, EmailID: id, Fingerprint: held.Fingerprint}
		if id == emailID {
			m = one
		}
		errs = append(errs, h.Review.Enqueue(ctx, m))
	}
	return errors.Join(errs...)
}
