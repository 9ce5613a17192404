// Package suppressiondb stores a workspace's do-not-send list, in the one
// table of internal/dynamo.
//
// Storage packages are named <entity>db after the entity package whose
// types they keep (suppression), so both import without an alias. It
// imports the table core (internal/dynamo), the schema and entity packages,
// and another storage package only to write that entity's items in its own
// transactions (the allow-list in internal/api/entities_test.go says which
// and why).
package suppressiondb

import "github.com/sesame-mail/sesame/internal/dynamo"

// Suppressions are a workspace's do-not-send addresses.
type Suppressions struct{ *dynamo.Table }
