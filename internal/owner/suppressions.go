package owner

import (
	"context"

	"github.com/sesame-mail/sesame/internal/compose"
)

// SuppressionStore keeps a workspace's do-not-send list.
type SuppressionStore interface {
	AddSuppression(ctx context.Context, workspaceID, address, reason string) error
}

// Suppressions manages a workspace's do-not-send list.
type Suppressions struct {
	Store SuppressionStore
}

// ManualReason is the reason of a suppression the owner adds without one.
const ManualReason = "manual"

// Add puts one address on the list (again is harmless) and returns it as
// stored, without a display name.
func (s *Suppressions) Add(ctx context.Context, workspaceID, address, reason string) (string, error) {
	if err := requireWorkspace(workspaceID); err != nil {
		return "", err
	}
	addr, err := compose.ParseAddress(address)
	if err != nil {
		return "", &InputError{Field: "address", Err: err}
	}
	if reason == "" {
		reason = ManualReason
	}
	if err := s.Store.AddSuppression(ctx, workspaceID, addr.Address, reason); err != nil {
		return "", err
	}
	return addr.Address, nil
}
