// Package segmentdb stores a workspace's segments (named filters), in the
// one table of internal/dynamo.
//
// Storage packages are named <entity>db after the entity package whose
// types they keep (segment), so both import without an alias. It imports
// the table core (internal/dynamo), the schema and entity packages, and
// another storage package only to write that entity's items in its own
// transactions (the allow-list in internal/api/entities_test.go says which
// and why).
package segmentdb

import "github.com/sesame-mail/sesame/internal/dynamo"

// Segments are a workspace's named filters.
type Segments struct{ *dynamo.Table }
