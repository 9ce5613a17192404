package owner

import (
	"context"

	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/workspace"
)

// WorkspaceStore keeps the workspaces.
type WorkspaceStore interface {
	CreateWorkspace(ctx context.Context, name string) (workspace.Workspace, error)
	GetWorkspace(ctx context.Context, id string) (workspace.Workspace, error)
	ListWorkspaces(ctx context.Context) ([]workspace.Workspace, error)
	UpdateWorkspace(ctx context.Context, id string, change workspace.Settings) (workspace.Workspace, error)
}

// Workspaces creates, lists and configures workspaces.
type Workspaces struct {
	Store WorkspaceStore
}

// ErrNothingToChange refuses a settings change that changes nothing.
var ErrNothingToChange error = fail.Errorf(fail.KindInvalid, "", "", "nothing to change")

// Create creates a workspace named name.
func (w *Workspaces) Create(ctx context.Context, name string) (workspace.Workspace, error) {
	if name == "" {
		return workspace.Workspace{}, fail.Invalid("name", "name is required")
	}
	return w.Store.CreateWorkspace(ctx, name)
}

// List returns every workspace (none is an empty list, not nil).
func (w *Workspaces) List(ctx context.Context) ([]workspace.Workspace, error) {
	all, err := w.Store.ListWorkspaces(ctx)
	if err != nil {
		return nil, err
	}
	if all == nil {
		all = []workspace.Workspace{}
	}
	return all, nil
}

// Get returns one workspace; workspace.ErrNotFound when there is none.
func (w *Workspaces) Get(ctx context.Context, id string) (workspace.Workspace, error) {
	return w.Store.GetWorkspace(ctx, id)
}

// Update changes the settings that change names (nil fields stay) and
// returns the workspace as changed. One refused setting refuses the whole
// change.
func (w *Workspaces) Update(ctx context.Context, id string, change workspace.Settings) (workspace.Workspace, error) {
	if change.MonthlyAllowance != nil && *change.MonthlyAllowance < 0 {
		return workspace.Workspace{}, fail.Invalid("monthly-allowance", "monthly-allowance must be 0 (no cap) or more")
	}
	if change.DefaultTracking != nil && !email.TrackingMode(*change.DefaultTracking).Valid() {
		return workspace.Workspace{}, fail.Invalid("default-tracking", "default-tracking must be full, essential or off")
	}
	if change.PostalAddress != nil {
		if err := workspace.CheckPostalAddress(*change.PostalAddress); err != nil {
			return workspace.Workspace{}, fail.Invalid("postal-address", "postal-address %s", err)
		}
	}
	if change == (workspace.Settings{}) {
		return workspace.Workspace{}, ErrNothingToChange
	}
	return w.Store.UpdateWorkspace(ctx, id, change)
}
