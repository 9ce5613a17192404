// Package accountdb stores the dashboard's owners of each workspace and the
// audit log of what they did there, in the one table of internal/dynamo.
//
// Storage packages are named <entity>db after the entity package whose
// types they keep (account), so both import without an alias. It imports
// the table core (internal/dynamo), the schema and entity packages, and
// another storage package only to write that entity's items in its own
// transactions (the allow-list in internal/api/entities_test.go says which
// and why).
package accountdb

import "github.com/sesame-mail/sesame/internal/dynamo"

// Owners are who signs in to a workspace's dashboard, and the audit
// log of what they did there.
type Owners struct{ *dynamo.Table }
