// Package eventdb stores the events feed; its item shape is exported for
// the status pipeline that writes it, in the one table of internal/dynamo.
//
// Storage packages are named <entity>db after the entity package whose
// types they keep (event), so both import without an alias. It imports the
// table core (internal/dynamo), the schema and entity packages, and another
// storage package only to write that entity's items in its own transactions
// (the allow-list in internal/api/entities_test.go says which and why).
package eventdb

import "github.com/sesame-mail/sesame/internal/dynamo"

// Events are the events feed.
type Events struct{ *dynamo.Table }
