package identity

import "context"

// Page is up to limit of the workspace's domains, newest first, after
// position after ("" for the first page), with the position to continue
// after and whether more follow: the domain list route's read, which
// reaches no SES identity.
func (d *Domains) Page(ctx context.Context, workspaceID, after string, limit int) ([]Domain, string, bool, error) {
	return d.Store.ListDomains(ctx, workspaceID, after, limit)
}
