package campaign

import "context"

// Page is up to limit of the workspace's campaigns with status ("" for
// every status), newest first, after position after ("" for the first
// page), with the position to continue after and whether more follow.
func (s *Service) Page(ctx context.Context, workspaceID string, status Status, after string, limit int) ([]Campaign, string, bool, error) {
	return s.Store.ListCampaigns(ctx, workspaceID, status, after, limit)
}
