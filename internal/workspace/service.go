package workspace

import (
	"context"

	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/fail"
)

// WorkspaceStore keeps the workspaces.
type WorkspaceStore interface {
	CreateWorkspace(ctx context.Context, name string) (Workspace, error)
	GetWorkspace(ctx context.Context, id string) (Workspace, error)
	ListWorkspaces(ctx context.Context) ([]Workspace, error)
	UpdateWorkspace(ctx context.Context, id string, change Settings) (Workspace, error)
}

// Service creates, lists and configures workspaces.
type Service struct {
	Store WorkspaceStore
}

// ErrNothingToChange refuses a settings change that changes nothing.
var ErrNothingToChange error = fail.Errorf(fail.KindInvalid, "", "", "nothing to change")

// Create creates a workspace named name.
func (w *Service) Create(ctx context.Context, name string) (Workspace, error) {
	if name == "" {
		return Workspace{}, fail.Invalid("name", "name is required")
	}
	return w.Store.CreateWorkspace(ctx, name)
}

// List returns every workspace (none is an empty list, not nil).
func (w *Service) List(ctx context.Context) ([]Workspace, error) {
	all, err := w.Store.ListWorkspaces(ctx)
	if err != nil {
		return nil, err
	}
	if all == nil {
		all = []Workspace{}
	}
	return all, nil
}

// Get returns one workspace; ErrNotFound when there is none.
func (w *Service) Get(ctx context.Context, id string) (Workspace, error) {
	return w.Store.GetWorkspace(ctx, id)
}

// Update changes the settings that change names (nil fields stay) and
// returns the workspace as changed. One refused setting refuses the whole
// change.
func (w *Service) Update(ctx context.Context, id string, change Settings) (Workspace, error) {
	if change.MonthlyAllowance != nil && *change.MonthlyAllowance < 0 {
		return Workspace{}, fail.Invalid("monthly-allowance", "monthly-allowance must be 0 (no cap) or more")
	}
	if change.DefaultTracking != nil && !email.TrackingMode(*change.DefaultTracking).Valid() {
		return Workspace{}, fail.Invalid("default-tracking", "default-tracking must be full, essential or off")
	}
	if change.PostalAddress != nil {
		if err := CheckPostalAddress(*change.PostalAddress); err != nil {
			return Workspace{}, fail.Invalid("postal-address", "postal-address %s", err)
		}
	}
	if change == (Settings{}) {
		return Workspace{}, ErrNothingToChange
	}
	return w.Store.UpdateWorkspace(ctx, id, change)
}

// Reader reads one workspace.
type Reader interface {
	GetWorkspace(ctx context.Context, id string) (Workspace, error)
}
