package owner

import (
	"context"
	"errors"
	"io"
	"strings"

	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/ident"
)

// ContactStore keeps a workspace's contacts.
type ContactStore interface {
	contact.Store
	contact.ImportStore
	GetContactByEmail(ctx context.Context, workspaceID, email string) (contact.Contact, error)
}

// Contacts lists, shows, deletes and imports a workspace's contacts.
type Contacts struct {
	Store ContactStore
	// Emails finds a contact's emails.
	Emails EmailLister
}

// List returns up to limit contacts, newest first, read a page at a time.
func (c *Contacts) List(ctx context.Context, workspaceID string, f contact.Filter, limit int) ([]contact.Contact, error) {
	if err := ident.RequireWorkspace(workspaceID); err != nil {
		return nil, err
	}
	if f.Email != "" {
		f.Email = contact.NormalizeEmail(f.Email)
	}
	var out []contact.Contact
	after := ""
	for len(out) < limit {
		page, next, more, err := c.Store.ListContacts(ctx, workspaceID, f, after, min(limit-len(out), 100))
		if err != nil {
			return nil, err
		}
		out = append(out, page...)
		if !more {
			break
		}
		after = next
	}
	return out, nil
}

// Show reads one contact by id, or by email when ref holds an @.
func (c *Contacts) Show(ctx context.Context, workspaceID, ref string) (contact.Contact, error) {
	if err := ident.RequireWorkspace(workspaceID); err != nil {
		return contact.Contact{}, err
	}
	var found contact.Contact
	var err error
	if strings.Contains(ref, "@") {
		found, err = c.Store.GetContactByEmail(ctx, workspaceID, ref)
	} else {
		found, err = c.Store.GetContact(ctx, workspaceID, strings.ToLower(ref))
	}
	if errors.Is(err, contact.ErrNotFound) {
		return contact.Contact{}, fail.Errorf(fail.KindNotFound, "", "contact", "contact %q is not a contact of the workspace", ref)
	}
	return found, err
}

// Delete erases one contact, by id or email; its suppression entry, if
// any, stays.
func (c *Contacts) Delete(ctx context.Context, workspaceID, ref string) (contact.Contact, error) {
	found, err := c.Show(ctx, workspaceID, ref)
	if err != nil {
		return contact.Contact{}, err
	}
	return found, c.Store.DeleteContact(ctx, workspaceID, found.ID)
}

// Import imports a CSV file (see contact.ReadCSV and contact.Importer).
func (c *Contacts) Import(ctx context.Context, workspaceID string, r io.Reader, progress func(contact.Report)) (contact.Report, error) {
	if err := ident.RequireWorkspace(workspaceID); err != nil {
		return contact.Report{}, err
	}
	return contact.Importer{Store: c.Store, Workers: 16}.Import(ctx, workspaceID, r, progress)
}

// ContactEmailsScanned bounds the workspace's newest emails Emails reads
// to find a contact's: emails are not kept by recipient, so a contact's
// older emails are not found.
const ContactEmailsScanned = 1000

// EmailsTo returns the emails sent to the contact's address among the
// workspace's newest ContactEmailsScanned, newest first.
func (c *Contacts) EmailsTo(ctx context.Context, workspaceID string, ct contact.Contact) ([]email.Email, error) {
	if err := ident.RequireWorkspace(workspaceID); err != nil {
		return nil, err
	}
	out := []email.Email{}
	scanned := 0
	for after, more := "", true; more && scanned < ContactEmailsScanned; {
		var page []email.Email
		var err error
		page, after, more, err = c.Emails.ListEmails(ctx, workspaceID, email.Filter{}, after, min(emailsPage, ContactEmailsScanned-scanned))
		if err != nil {
			return nil, err
		}
		scanned += len(page)
		for _, e := range page {
			if contact.NormalizeEmail(e.To) == ct.Email {
				out = append(out, e)
			}
		}
	}
	return out, nil
}
