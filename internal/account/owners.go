package account

import (
	"context"
	"time"

	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/ident"
	"github.com/sesame-mail/sesame/internal/suppression"
)

// Owner is an address that signs in to a workspace's dashboard. One
// address may own several workspaces; it then picks one after signing in.
type Owner struct {
	Address     string    `json:"address"`
	WorkspaceID string    `json:"workspace_id"`
	AddedAt     time.Time `json:"added_at"`
}

// ErrOwnerNotFound: the address does not own that workspace.
var ErrOwnerNotFound error = fail.NotFound("owner")

// OwnerStore keeps the owners, listed by workspace and looked up by
// address (sign-in starts from the address alone).
type OwnerStore interface {
	// AddOwner records o, of an existing workspace (workspace.ErrNotFound
	// otherwise); adding it again changes nothing.
	AddOwner(ctx context.Context, o Owner) error
	RemoveOwner(ctx context.Context, workspaceID, address string) error
	ListOwners(ctx context.Context, workspaceID string) ([]Owner, error)
	WorkspacesOf(ctx context.Context, address string) ([]string, error)
}

// Owners adds, removes and lists the owners of a workspace.
type Owners struct {
	Store OwnerStore
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

// Add makes address an owner of the workspace.
func (o *Owners) Add(ctx context.Context, workspaceID, address string) (Owner, error) {
	if err := ident.RequireWorkspace(workspaceID); err != nil {
		return Owner{}, err
	}
	addr, err := suppression.ParseEmail(address)
	if err != nil {
		return Owner{}, fail.Refused("email", err)
	}
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	own := Owner{Address: addr, WorkspaceID: workspaceID, AddedAt: now().UTC()}
	if err := o.Store.AddOwner(ctx, own); err != nil {
		return Owner{}, err
	}
	return own, nil
}

// Remove takes address's ownership of the workspace away; its sessions
// end at their next request (the dashboard checks ownership on each).
func (o *Owners) Remove(ctx context.Context, workspaceID, address string) error {
	if err := ident.RequireWorkspace(workspaceID); err != nil {
		return err
	}
	return o.Store.RemoveOwner(ctx, workspaceID, suppression.Key(address))
}

// List returns the workspace's owners by address.
func (o *Owners) List(ctx context.Context, workspaceID string) ([]Owner, error) {
	if err := ident.RequireWorkspace(workspaceID); err != nil {
		return nil, err
	}
	all, err := o.Store.ListOwners(ctx, workspaceID)
	if all == nil && err == nil {
		all = []Owner{}
	}
	return all, err
}

// WorkspacesOf lists the workspaces address owns.
func (o *Owners) WorkspacesOf(ctx context.Context, address string) ([]string, error) {
	return o.Store.WorkspacesOf(ctx, suppression.Key(address))
}

// Owns reports whether address owns the workspace.
func (o *Owners) Owns(ctx context.Context, workspaceID, address string) (bool, error) {
	all, err := o.WorkspacesOf(ctx, address)
	for _, ws := range all {
		if ws == workspaceID {
			return true, err
		}
	}
	return false, err
}
