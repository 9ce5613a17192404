package email

import (
	"context"
	"fmt"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/ident"
)

// Lister lists a workspace's emails, newest first, a page at a time.
type Lister interface {
	ListEmails(ctx context.Context, workspaceID string, f Filter, after string, limit int) ([]Email, string, bool, error)
}

// Reader lists a workspace's emails and reads one.
type Reader interface {
	Lister
	GetEmail(ctx context.Context, workspaceID, id string) (Email, error)
}

// ViewStore reads a workspace's emails and an email's clicks.
type ViewStore interface {
	Reader
	ListClicks(ctx context.Context, workspaceID, emailID string, limit int) ([]Click, bool, error)
}

// Views are every email of the workspace as its owner looks them up (the
// console and the dashboard): the API's filters and keyset pages, an
// email with its clicks, its content as it went (Content).
type Views struct {
	Store ViewStore
	// Kept reads a transactional email's kept content.
	Kept interface {
		GetContent(ctx context.Context, workspaceID, emailID string) (KeptContent, error)
	}
	// Campaigns and Automations render a campaign's or an automation's
	// email again, each with its sender's own composition.
	Campaigns, Automations Renderer
}

// FilterInput is the list's filters as the owner gives them; "" does not
// filter.
type FilterInput struct {
	Status, Type, Environment string
}

// Filter is f checked: an unknown value is refused, named by its input.
func (f FilterInput) Filter() (Filter, error) {
	out := Filter{Status: Status(f.Status), Type: Type(f.Type), Environment: apikey.Environment(f.Environment)}
	switch {
	case f.Status != "" && !out.Status.Valid():
		return Filter{}, fail.Invalid("status", "status %q is not an email status", f.Status)
	case f.Type != "" && !out.Type.Valid():
		return Filter{}, fail.Invalid("type", "type %q is not an email type (campaign, automation, transactional)", f.Type)
	case f.Environment != "" && !out.Environment.Valid():
		return Filter{}, fail.Invalid("environment", "environment %q is not live or test", f.Environment)
	}
	return out, nil
}

// ViewsPage is the most emails one page of Views.List holds.
const ViewsPage = 100

// List is a page of the workspace's emails passing f, newest first, after
// the keyset cursor after ("" is the first page); it returns the next
// page's cursor, "" on the last.
func (v *Views) List(ctx context.Context, workspaceID string, f FilterInput, after string, limit int) ([]Email, string, error) {
	if err := ident.RequireWorkspace(workspaceID); err != nil {
		return nil, "", err
	}
	if limit < 1 || limit > ViewsPage {
		return nil, "", fail.Invalid("limit", "limit must be 1 to %d", ViewsPage)
	}
	filter, err := f.Filter()
	if err != nil {
		return nil, "", err
	}
	page, next, more, err := v.Store.ListEmails(ctx, workspaceID, filter, after, limit)
	if err != nil || !more {
		next = ""
	}
	return page, next, err
}

// Shown is an email with its recorded clicks, newest first.
type Shown struct {
	Email
	Clicks []Click
	// MoreClicks says clicks beyond the ones read exist.
	MoreClicks bool
}

// clicksShown bounds the clicks read with an email.
const clicksShown = 100

// Show reads one email of the workspace (its id in any case) with its
// clicks; another workspace's is ErrNotFound.
func (v *Views) Show(ctx context.Context, workspaceID, emailID string) (Shown, error) {
	m, err := v.Get(ctx, workspaceID, emailID)
	if err != nil {
		return Shown{}, err
	}
	records, more, err := v.Store.ListClicks(ctx, workspaceID, m.ID, clicksShown)
	if err != nil {
		return Shown{}, err
	}
	clicks, more := MergeClicks(m, records, more, clicksShown)
	return Shown{Email: m, Clicks: clicks, MoreClicks: more}, nil
}

// Get reads one email of the workspace, its id in any case; another
// workspace's, or an id that is none, is ErrNotFound.
func (v *Views) Get(ctx context.Context, workspaceID, emailID string) (Email, error) {
	return get(ctx, v.Store, workspaceID, emailID)
}

func get(ctx context.Context, r Reader, workspaceID, emailID string) (Email, error) {
	if err := ident.RequireWorkspace(workspaceID); err != nil {
		return Email{}, err
	}
	id, err := ident.Parse(emailID)
	if err != nil {
		return Email{}, fmt.Errorf("email %s: %w", emailID, ErrNotFound)
	}
	m, err := r.GetEmail(ctx, workspaceID, id.String())
	if err != nil {
		return Email{}, fmt.Errorf("email %s: %w", emailID, err)
	}
	return m, nil
}

// listPage is how many emails one read of ListAll asks for; a filtered
// read examines at most 1,000, so an old email can be a few pages down.
const listPage = 100

// ListAll reads every page of the workspace's emails that pass f.
func ListAll(ctx context.Context, emails Lister, workspaceID string, f Filter) ([]Email, error) {
	if err := ident.RequireWorkspace(workspaceID); err != nil {
		return nil, err
	}
	all := []Email{}
	for after, more := "", true; more; {
		var page []Email
		var err error
		page, after, more, err = emails.ListEmails(ctx, workspaceID, f, after, listPage)
		if err != nil {
			return nil, err
		}
		all = append(all, page...)
	}
	return all, nil
}
