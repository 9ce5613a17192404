package event

import "context"

// Service reads a workspace's events feed: the envelopes the status
// pipeline recorded, which webhooks carry too.
type Service struct {
	Store Store
}

// Page is up to limit envelopes, newest first, after position after (""
// for the first page), with the position to continue after and whether
// more follow.
func (s *Service) Page(ctx context.Context, workspaceID, after string, limit int) ([][]byte, string, bool, error) {
	return s.Store.ListEvents(ctx, workspaceID, after, limit)
}
