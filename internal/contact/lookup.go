package contact

import (
	"context"
	"errors"
	"io"
	"strings"

	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/ident"
)

// List returns up to limit contacts, newest first, read a page at a time.
func (s Service) List(ctx context.Context, workspaceID string, f Filter, limit int) ([]Contact, error) {
	if err := ident.RequireWorkspace(workspaceID); err != nil {
		return nil, err
	}
	if f.Email != "" {
		f.Email = NormalizeEmail(f.Email)
	}
	var out []Contact
	after := ""
	for len(out) < limit {
		page, next, more, err := s.Store.ListContacts(ctx, workspaceID, f, after, min(limit-len(out), 100))
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

// Show reads one contact by id, or by email when ref holds an @, as the
// owner types it.
func (s Service) Show(ctx context.Context, workspaceID, ref string) (Contact, error) {
	if err := ident.RequireWorkspace(workspaceID); err != nil {
		return Contact{}, err
	}
	var found Contact
	var err error
	if strings.Contains(ref, "@") {
		found, err = s.ByEmail.GetContactByEmail(ctx, workspaceID, ref)
	} else {
		found, err = s.Store.GetContact(ctx, workspaceID, strings.ToLower(ref))
	}
	if errors.Is(err, ErrNotFound) {
		return Contact{}, fail.Errorf(fail.KindNotFound, "", "contact", "contact %q is not a contact of the workspace", ref)
	}
	return found, err
}

// Import imports a CSV file (see ReadCSV and Importer).
func (s Service) Import(ctx context.Context, workspaceID string, r io.Reader, progress func(Report)) (Report, error) {
	if err := ident.RequireWorkspace(workspaceID); err != nil {
		return Report{}, err
	}
	return Importer{Store: s.Imports, Workers: 16}.Import(ctx, workspaceID, r, progress)
}
