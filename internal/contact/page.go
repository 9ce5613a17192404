package contact

import "context"

// Page is up to limit of the workspace's contacts passing f, newest
// first, after position after ("" for the first page), with the position
// to continue after and whether more follow.
func (s Service) Page(ctx context.Context, workspaceID string, f Filter, after string, limit int) ([]Contact, string, bool, error) {
	return s.Store.ListContacts(ctx, workspaceID, f, after, limit)
}
