package contact

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/fail"
)

// Service is the contacts of a workspace as the API and the console use
// them: checked changes, new ids, and store answers turned into the API's
// errors.
type Service struct {
	Store Store
	// The owner's surfaces also use these; the API leaves them nil.
	// Imports writes an import (Import); ByEmail finds a contact by its
	// address (Show); Emails lists the workspace's emails (EmailsTo).
	Imports ImportStore
	ByEmail interface {
		GetContactByEmail(ctx context.Context, workspaceID, email string) (Contact, error)
	}
	Emails email.Lister
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

func (s Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// Create checks p and stores a new contact: 409 contact_exists when the
// email is taken.
func (s Service) Create(ctx context.Context, workspaceID string, p Patch) (Contact, error) {
	if p.Email == nil {
		return Contact{}, fail.Missing("email")
	}
	p, err := p.Check()
	if err != nil {
		return Contact{}, err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return Contact{}, err
	}
	c, err := New(workspaceID, id.String(), p, s.now())
	if err != nil {
		return Contact{}, err
	}
	return c, storeError(s.Store.CreateContact(ctx, c))
}

// Get reads one contact.
func (s Service) Get(ctx context.Context, workspaceID, id string) (Contact, error) {
	c, err := s.Store.GetContact(ctx, workspaceID, id)
	return c, storeError(err)
}

// Update checks p and applies it to the contact.
func (s Service) Update(ctx context.Context, workspaceID, id string, p Patch) (Contact, error) {
	p, err := p.Check()
	if err != nil {
		return Contact{}, err
	}
	c, err := s.Store.UpdateContact(ctx, workspaceID, id, p)
	return c, storeError(err)
}

// Delete erases the contact.
func (s Service) Delete(ctx context.Context, workspaceID, id string) error {
	return storeError(s.Store.DeleteContact(ctx, workspaceID, id))
}

// storeError turns the store's answers into the API's errors.
func storeError(err error) error {
	switch {
	case errors.Is(err, ErrNotFound):
		return fail.NotFound("contact")
	case errors.Is(err, ErrExists):
		return fail.Errorf(fail.KindConflict, fail.ContactExists, "email", "a contact with this email exists")
	}
	return err
}
