package owner

import (
	"context"
	"fmt"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/ident"
)

// EmailStore reads a workspace's emails and an email's clicks.
type EmailStore interface {
	CapturedStore
	ListClicks(ctx context.Context, workspaceID, emailID string, limit int) ([]email.Click, bool, error)
}

// Emails are every email of the workspace as its owner looks them up:
// the API's filters and keyset pages, an email with its clicks.
type Emails struct {
	Store EmailStore
	// Webhooks finds an email's webhook deliveries.
	Webhooks DeliveryStore
	// Sources read or render an email's content (Content).
	Sources ContentSources
	// PublicURL is the stack's public URL, which a shown campaign or
	// automation email's stand-in unsubscribe link starts with
	// (PreviewLinks, as the approval preview's).
	PublicURL string
}

// EmailFilter is the list's filters as the owner gives them; "" does not
// filter.
type EmailFilter struct {
	Status, Type, Environment string
}

// Filter is f checked: an unknown value is refused, named by its input.
func (f EmailFilter) Filter() (email.Filter, error) {
	out := email.Filter{Status: email.Status(f.Status), Type: email.Type(f.Type), Environment: apikey.Environment(f.Environment)}
	switch {
	case f.Status != "" && !out.Status.Valid():
		return email.Filter{}, fail.Invalid("status", "status %q is not an email status", f.Status)
	case f.Type != "" && !out.Type.Valid():
		return email.Filter{}, fail.Invalid("type", "type %q is not an email type (campaign, automation, transactional)", f.Type)
	case f.Environment != "" && !out.Environment.Valid():
		return email.Filter{}, fail.Invalid("environment", "environment %q is not live or test", f.Environment)
	}
	return out, nil
}

// EmailsPage is the most emails one page holds.
const EmailsPage = 100

// List is a page of the workspace's emails passing f, newest first, after
// the keyset cursor after ("" is the first page); it returns the next
// page's cursor, "" on the last.
func (e *Emails) List(ctx context.Context, workspaceID string, f EmailFilter, after string, limit int) ([]email.Email, string, error) {
	if err := ident.RequireWorkspace(workspaceID); err != nil {
		return nil, "", err
	}
	if limit < 1 || limit > EmailsPage {
		return nil, "", fail.Invalid("limit", "limit must be 1 to %d", EmailsPage)
	}
	filter, err := f.Filter()
	if err != nil {
		return nil, "", err
	}
	page, next, more, err := e.Store.ListEmails(ctx, workspaceID, filter, after, limit)
	if err != nil || !more {
		next = ""
	}
	return page, next, err
}

// ShownEmail is an email with its recorded clicks, newest first.
type ShownEmail struct {
	email.Email
	Clicks []email.Click
	// MoreClicks says clicks beyond the ones read exist.
	MoreClicks bool
}

// clicksShown bounds the clicks read with an email.
const clicksShown = 100

// Show reads one email of the workspace (its id in any case) with its
// clicks; another workspace's is email.ErrNotFound.
func (e *Emails) Show(ctx context.Context, workspaceID, emailID string) (ShownEmail, error) {
	m, err := e.get(ctx, workspaceID, emailID)
	if err != nil {
		return ShownEmail{}, err
	}
	clicks, more, err := e.Store.ListClicks(ctx, workspaceID, m.ID, clicksShown)
	if err != nil {
		return ShownEmail{}, err
	}
	return ShownEmail{Email: m, Clicks: clicks, MoreClicks: more}, nil
}

// get reads one email of the workspace, its id in any case; another
// workspace's, or an id that is none, is email.ErrNotFound.
func (e *Emails) get(ctx context.Context, workspaceID, emailID string) (email.Email, error) {
	if err := ident.RequireWorkspace(workspaceID); err != nil {
		return email.Email{}, err
	}
	id, err := ident.Parse(emailID)
	if err != nil {
		return email.Email{}, fmt.Errorf("email %s: %w", emailID, email.ErrNotFound)
	}
	m, err := e.Store.GetEmail(ctx, workspaceID, id.String())
	if err != nil {
		return email.Email{}, fmt.Errorf("email %s: %w", emailID, err)
	}
	return m, nil
}
