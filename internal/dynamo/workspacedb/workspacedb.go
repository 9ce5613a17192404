// Package workspacedb stores the workspaces (tenants) and their sending
// identities (identity: domains and senders), which write together: a
// verified domain and the default sender are kept on the workspace record,
// in the one table of internal/dynamo.
//
// Storage packages are named <entity>db after the entity package whose
// types they keep (workspace), so both import without an alias. It imports
// the table core (internal/dynamo), the schema and entity packages, and
// another storage package only to write that entity's items in its own
// transactions (the allow-list in internal/api/entities_test.go says which
// and why).
package workspacedb

import "github.com/sesame-mail/sesame/internal/dynamo"

type (
	// Workspaces are the tenants: settings, verified domains, default sender.
	Workspaces struct{ *dynamo.Table }
	// Domains are sending domains and their one-workspace claims.
	Domains struct{ *dynamo.Table }
	// Senders are a workspace's sender addresses.
	Senders struct{ *dynamo.Table }
)
