package owner

import (
	"context"
	"fmt"

	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/ident"
	"github.com/sesame-mail/sesame/internal/suppression"
)

// Suppressions manages a workspace's do-not-send list, by the same rules
// as the API: one reading of an address, idempotent adds that keep the
// first entry, the same reasons.
type Suppressions struct {
	Store suppression.Store
}

// ManualReason is the reason of a suppression the owner adds without one.
const ManualReason = string(suppression.Manual)

// suppressionsPage is how many entries List reads per page.
const suppressionsPage = 100

// Add puts one address on the list, without its display name; an address
// listed already keeps its entry, which is returned with added false.
func (s *Suppressions) Add(ctx context.Context, workspaceID, address, reason string) (suppression.Suppression, bool, error) {
	if err := ident.RequireWorkspace(workspaceID); err != nil {
		return suppression.Suppression{}, false, err
	}
	addr, err := suppression.ParseEmail(address)
	if err != nil {
		return suppression.Suppression{}, false, fail.Refused("address", err)
	}
	r, err := suppression.ParseReason(reason)
	if err != nil {
		return suppression.Suppression{}, false, fail.Refused("reason", err)
	}
	return s.Store.PutSuppression(ctx, workspaceID, suppression.Suppression{Email: addr, Reason: r})
}

// List returns every entry of the list that passes f, newest first. f's
// Email is an address as the owner typed it; Reason must be a reason.
func (s *Suppressions) List(ctx context.Context, workspaceID string, f suppression.Filter) ([]suppression.Suppression, error) {
	if err := ident.RequireWorkspace(workspaceID); err != nil {
		return nil, err
	}
	if f.Email != "" {
		addr, err := suppression.ParseEmail(f.Email)
		if err != nil {
			return nil, fail.Refused("email", err)
		}
		f.Email = addr
	}
	if f.Reason != "" && !f.Reason.Valid() {
		return nil, fail.Refused("reason", suppression.ErrBadReason)
	}
	all := []suppression.Suppression{}
	for after, more := "", true; more; {
		var page []suppression.Suppression
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
// suppression.ErrNotFound when it is not listed. Email goes to it again.
func (s *Suppressions) Remove(ctx context.Context, workspaceID, address string) (suppression.Suppression, error) {
	if err := ident.RequireWorkspace(workspaceID); err != nil {
		return suppression.Suppression{}, err
	}
	key := address
	if addr, err := suppression.ParseEmail(address); err == nil {
		key = addr // with a display name, as Add takes it
	}
	sup, err := s.Store.DeleteSuppression(ctx, workspaceID, key)
	if err != nil {
		return suppression.Suppression{}, fmt.Errorf("%s: %w", address, err)
	}
	return sup, nil
}
