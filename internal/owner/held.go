package owner

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/ident"
	"github.com/sesame-mail/sesame/internal/review"
	"github.com/sesame-mail/sesame/internal/sending"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// EmailLister lists a workspace's emails, newest first, a page at a time.
type EmailLister interface {
	ListEmails(ctx context.Context, workspaceID string, f email.Filter, after string, limit int) ([]email.Email, string, bool, error)
}

// HeldStore reads held emails and finds those held with a template.
type HeldStore interface {
	GetHeld(ctx context.Context, workspaceID, emailID string) (sending.HeldEmail, error)
	ListHeld(ctx context.Context, workspaceID, fingerprint string) ([]string, error)
}

// TemplateStore keeps the security review's verdict on each template.
type TemplateStore interface {
	GetTemplate(ctx context.Context, workspaceID, fingerprint string) (sending.Template, error)
	DecideTemplate(ctx context.Context, workspaceID, fingerprint string, state sending.TemplateState, reasons []string, onlyIfPending bool) (bool, error)
}

// ReviewQueue carries held emails to the review function, which sends or
// fails them (queue.Publisher).
type ReviewQueue interface {
	Enqueue(ctx context.Context, body any) error
}

// ErrNoReviewQueue refuses a clear or deny when no review queue is wired:
// the review function releases held email, not the owner's surface.
var ErrNoReviewQueue = errors.New("no review queue to release held email")

// Held is the owner's side of the security review: the emails it holds,
// and the owner's clear or deny of one.
type Held struct {
	Emails    EmailLister
	Store     HeldStore
	Templates TemplateStore
	// Workspaces gives the brands an email may name (List's reasons).
	Workspaces workspace.Reader
	// Review is nil where no review queue is configured.
	Review ReviewQueue
}

// HeldEmail is a held email and why the review holds it.
type HeldEmail struct {
	email.Email
	// Reasons say why, in the review's words (e.g. "names a brand the
	// workspace does not own: PayPal").
	Reasons []string
}

// emailsPage is how many emails one read asks for; a filtered read
// examines at most 1,000, so an old held email can be a few pages down.
const emailsPage = 100

// List returns every email the review holds, newest first, with why it is
// held. An email released while the list is read is left out.
func (h *Held) List(ctx context.Context, workspaceID string) ([]HeldEmail, error) {
	emails, err := listEmails(ctx, h.Emails, workspaceID, email.Filter{Status: email.StatusHeld})
	if err != nil || len(emails) == 0 {
		return []HeldEmail{}, err
	}
	ws, err := h.Workspaces.GetWorkspace(ctx, workspaceID)
	if err != nil {
		return nil, err
	}
	templates := map[string]sending.Template{}
	out := make([]HeldEmail, 0, len(emails))
	for _, e := range emails {
		held, err := h.Store.GetHeld(ctx, workspaceID, e.ID)
		if errors.Is(err, sending.ErrNotHeld) {
			continue // released meanwhile
		}
		if err != nil {
			return nil, fmt.Errorf("email %s: %w", e.ID, err)
		}
		tpl, ok := templates[held.Fingerprint]
		if !ok {
			if tpl, err = h.Templates.GetTemplate(ctx, workspaceID, held.Fingerprint); err != nil {
				return nil, fmt.Errorf("email %s: %w", e.ID, err)
			}
			templates[held.Fingerprint] = tpl
		}
		out = append(out, HeldEmail{Email: e, Reasons: holdReasons(tpl, held.Request, ws)})
	}
	return out, nil
}

// HeldShown is a held email as the owner looks at it before clearing or
// denying it: why it is held and the content the review holds.
type HeldShown struct {
	HeldEmail
	HTML string
}

// Show reads one held email; an email not held (released, or another
// workspace's) is sending.ErrNotHeld.
func (h *Held) Show(ctx context.Context, workspaceID, emailID string) (HeldShown, error) {
	if err := ident.RequireWorkspace(workspaceID); err != nil {
		return HeldShown{}, err
	}
	held, err := h.Store.GetHeld(ctx, workspaceID, emailID)
	if err != nil {
		return HeldShown{}, fmt.Errorf("email %s: %w", emailID, err)
	}
	tpl, err := h.Templates.GetTemplate(ctx, workspaceID, held.Fingerprint)
	if err != nil {
		return HeldShown{}, fmt.Errorf("email %s: %w", emailID, err)
	}
	ws, err := h.Workspaces.GetWorkspace(ctx, workspaceID)
	if err != nil {
		return HeldShown{}, err
	}
	return HeldShown{HeldEmail: HeldEmail{Email: held.Email, Reasons: holdReasons(tpl, held.Request, ws)}, HTML: held.Request.HTML}, nil
}

// holdReasons says why an email is held, from what the review records:
// its template's verdict and, once the template is cleared, the email's own
// check (brands, links, markup), run on the held content as the review
// runs it, so the reasons are never older than the workspace's settings.
func holdReasons(tpl sending.Template, req sending.Request, ws workspace.Workspace) []string {
	switch tpl.State {
	case sending.TemplatePending:
		return []string{"new template: its first security review is pending (it runs within seconds of the send; or clear or deny it)"}
	case sending.TemplateDenied:
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
	tpl, err := h.Templates.GetTemplate(ctx, workspaceID, held.Fingerprint)
	if err != nil {
		return fmt.Errorf("email %s: %w", emailID, err)
	}
	one := sending.ReviewMessage{WorkspaceID: workspaceID, EmailID: emailID, Fingerprint: held.Fingerprint, Vouched: cleared, Denied: !cleared}
	if tpl.State == sending.TemplateCleared || (tpl.State == sending.TemplateDenied && !cleared) {
		return h.Review.Enqueue(ctx, one)
	}
	state, reasons := sending.TemplateCleared, []string(nil)
	if !cleared {
		state, reasons = sending.TemplateDenied, []string{"denied by the workspace owner"}
	}
	if _, err := h.Templates.DecideTemplate(ctx, workspaceID, held.Fingerprint, state, reasons, false); err != nil {
		return err
	}
	ids, err := h.Store.ListHeld(ctx, workspaceID, held.Fingerprint)
	if err != nil {
		return err
	}
	var errs []error
	for _, id := range ids {
		m := sending.ReviewMessage{WorkspaceID: workspaceID, EmailID: id, Fingerprint: held.Fingerprint}
		if id == emailID {
			m = one
		}
		errs = append(errs, h.Review.Enqueue(ctx, m))
	}
	return errors.Join(errs...)
}

// CapturedStore lists a workspace's emails and reads one.
type CapturedStore interface {
	EmailLister
	GetEmail(ctx context.Context, workspaceID, id string) (email.Email, error)
}

// RawReader reads the exact message of a workspace's email (the local
// stack's devstack.RawMessages); it fails for an email whose message is
// not kept.
type RawReader interface {
	Raw(workspaceID, emailID string) ([]byte, error)
}

// Captured is what test keys sent: captured, never delivered.
type Captured struct {
	Emails CapturedStore
	// Raw is nil where messages are not kept: a deployed stack keeps the
	// email, not its MIME.
	Raw RawReader
}

var (
	// ErrNotCaptured refuses an email that a live key sent.
	ErrNotCaptured = fail.Errorf(fail.KindConflict, "", "", "not captured in test mode: a live key sent it")
	// ErrNoRawMessages refuses --raw where no messages are kept.
	ErrNoRawMessages error = fail.Errorf(fail.KindConflict, "", "", "raw messages are kept only by the local stack (sesame dev), not by a deployed stack")
)

// List returns every email captured in test mode, newest first.
func (c *Captured) List(ctx context.Context, workspaceID string) ([]email.Email, error) {
	return listEmails(ctx, c.Emails, workspaceID, email.Filter{Environment: apikey.Test})
}

// Get returns one captured email; its id is case-insensitive.
func (c *Captured) Get(ctx context.Context, workspaceID, emailID string) (email.Email, error) {
	if err := ident.RequireWorkspace(workspaceID); err != nil {
		return email.Email{}, err
	}
	id, err := ident.Parse(emailID)
	if err != nil {
		return email.Email{}, fmt.Errorf("email %s: %w", emailID, email.ErrNotFound)
	}
	e, err := c.Emails.GetEmail(ctx, workspaceID, id.String())
	if err != nil {
		return email.Email{}, fmt.Errorf("email %s: %w", emailID, err)
	}
	if e.Environment != apikey.Test {
		return email.Email{}, fail.Wrap(ErrNotCaptured, "email %s", emailID)
	}
	return e, nil
}

// Message returns the exact MIME of a captured email, as the test key's
// send built it.
func (c *Captured) Message(ctx context.Context, workspaceID, emailID string) ([]byte, error) {
	e, err := c.Get(ctx, workspaceID, emailID)
	if err != nil {
		return nil, err
	}
	if c.Raw == nil {
		return nil, ErrNoRawMessages
	}
	raw, err := c.Raw.Raw(workspaceID, e.ID)
	if err != nil {
		return nil, fmt.Errorf("email %s: %w", emailID, err)
	}
	return raw, nil
}

// listEmails reads every page of the workspace's emails that pass f.
func listEmails(ctx context.Context, emails EmailLister, workspaceID string, f email.Filter) ([]email.Email, error) {
	if err := ident.RequireWorkspace(workspaceID); err != nil {
		return nil, err
	}
	all := []email.Email{}
	for after, more := "", true; more; {
		var page []email.Email
		var err error
		page, after, more, err = emails.ListEmails(ctx, workspaceID, f, after, emailsPage)
		if err != nil {
			return nil, err
		}
		all = append(all, page...)
	}
	return all, nil
}
