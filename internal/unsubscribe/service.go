package unsubscribe

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/sesame-mail/sesame/internal/contact"
	"github.com/sesame-mail/sesame/internal/suppression"
)

// ContactStore ends a contact's subscription: subscribed false, and
// unsubscribed_at kept from the first time; contact.ErrNotFound when the
// contact does not exist.
type ContactStore interface {
	Unsubscribe(ctx context.Context, workspaceID, contactID string, at time.Time) (contact.Contact, error)
}

// SuppressionStore puts an address on the workspace's do-not-send list
// (suppression.Store's PutSuppression; again keeps the first entry).
type SuppressionStore interface {
	PutSuppression(ctx context.Context, workspaceID string, s suppression.Suppression) (suppression.Suppression, bool, error)
}

// Service verifies tokens and unsubscribes their recipient.
type Service struct {
	Signer       Signer
	Contacts     ContactStore
	Suppressions SuppressionStore
	// Now is the clock of unsubscribed_at; time.Now when nil.
	Now func() time.Time
}

// Check verifies token and changes nothing: what a GET of the link does
// (link scanners follow GETs). ErrInvalidToken for a bad token.
func (s *Service) Check(token string) error {
	_, err := s.Signer.Verify(token)
	return err
}

// Unsubscribe verifies token and unsubscribes its recipient: a contact's
// subscription ends, an address with no contact goes on the do-not-send
// list. Doing it again changes nothing more. A contact deleted since the
// link was sent is unsubscribed already: nothing is sent to it.
func (s *Service) Unsubscribe(ctx context.Context, token string) error {
	t, err := s.Signer.Verify(token)
	if err != nil {
		return err
	}
	if t.Address != "" {
		entry := suppression.Suppression{Email: t.Address, Reason: suppression.Unsubscribed}
		if _, _, err := s.Suppressions.PutSuppression(ctx, t.WorkspaceID, entry); err != nil {
			return fmt.Errorf("unsubscribe address: %w", err)
		}
		return nil
	}
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	_, err = s.Contacts.Unsubscribe(ctx, t.WorkspaceID, t.ContactID, now().UTC())
	if err != nil && !errors.Is(err, contact.ErrNotFound) {
		return fmt.Errorf("unsubscribe contact: %w", err)
	}
	return nil
}
