package deliverability

import (
	"context"
	"errors"

	"github.com/sesame-mail/sesame/internal/workspace"
)

// WorkspaceReader reads a workspace, for the brands it owns.
type WorkspaceReader interface {
	GetWorkspace(ctx context.Context, id string) (workspace.Workspace, error)
}

// Service checks an email for a workspace: it writes nothing, and reads
// only the workspace, for its brands.
type Service struct {
	// Workspaces reads the workspace; nil reads none, and then every
	// impersonated brand an email names is foreign.
	Workspaces WorkspaceReader
}

// Check reports in for workspaceID, its brands read from the workspace
// (an absent workspace owns none).
func (s *Service) Check(ctx context.Context, workspaceID string, in Input) (Report, error) {
	if s.Workspaces != nil {
		ws, err := s.Workspaces.GetWorkspace(ctx, workspaceID)
		if err != nil && !errors.Is(err, workspace.ErrNotFound) {
			return Report{}, err
		}
		in.OwnBrands = ws.OwnBrands()
	}
	return Check(in), nil
}
