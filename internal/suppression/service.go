package suppression

import (
	"context"
	"fmt"

	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/ident"
)

// Service manages a workspace's do-not-send list, by the same rules
// as the API: one reading of an address, idempotent adds that keep the
// first entry, the same reasons.
type Service struct {
	Store Store
}

// ManualReason is the reason of a suppression the owner adds without one.
const ManualReason = string(Manual)

// suppressionsPage is how many entries List reads per page.
const suppressionsPage = 100

// Add puts one address on the list, without its display name; an address
// listed already keeps its entry, which is returned with added false.
func (s *Service) Add(ctx context.Context, workspaceID, address, reason string) (Suppression, bool, error) {
	if err := ident.RequireWorkspace(workspaceID); err != nil {
		return Suppression{}, false, err
	}
	addr, err := ParseEmail(address)
	if err != nil {
		return Suppression{}, false, fail.Refused("address", err)
	}
	r, err := ParseReason(reason)
	if err != nil {
		return Suppression{}, false, fail.Refused("reason", err)
	}
	return s.Store.PutSuppression(ctx, workspaceID, Suppression{Email: addr, Reason: r})
}

// List returns every entry of the list that passes f, newest first. f's
// Email is an address as the owner typed it; Reason must be a reason.
func (s *Service) List(ctx context.Context, workspaceID string, f Filter) ([]Suppression, error) {
	if err := ident.RequireWorkspace(workspaceID); err != nil {
		return nil, err
	}
	if f.Email != "" {
		addr, err := ParseEmail(f.Email)
		if err != nil {
			return nil, fail.Refused("email", err)
		}
		f.Email = addr
	}
	if f.Reason != "" && !f.Reason.Valid() {
		return nil, fail.Refused("reason", ErrBadReason)
	}
	all := []Suppression{}
	for after, more := "", true; more; {
		var page []Suppression
		var err error
		page, after, more, err = s.Store.ListSuppressions(ctx, workspaceID, f, after, suppressionsPage)
		if err != nil {
			return nil, err
		}
		all = append(all, page...)
	}
	return all, nil
}

// Remove takes an address off the list and returns its entry;
// ErrNotFound when it is not listed. Email goes to it again.
func (s *Service) Remove(ctx context.Context, workspaceID, address string) (Suppression, error) {
	if err := ident.RequireWorkspace(workspaceID); err != nil {
		return Suppression{}, err
	}
	key := address
	if addr, err := ParseEmail(address); err == nil {
		key = addr // with a display name, as Add takes it
	}
	sup, err := s.Store.DeleteSuppression(ctx, workspaceID, key)
	if err != nil {
		return Suppression{}, fmt.Errorf("%s: %w", address, err)
	}
	return sup, nil
}
