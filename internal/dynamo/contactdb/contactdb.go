// Package contactdb stores a workspace's contacts, each email address
// claimed by one, in the one table of internal/dynamo.
//
// Storage packages are named <entity>db after the entity package whose
// types they keep (contact), so both import without an alias. It imports
// the table core (internal/dynamo), the schema and entity packages, and
// another storage package only to write that entity's items in its own
// transactions (the allow-list in internal/api/entities_test.go says which
// and why).
package contactdb

import "github.com/sesame-mail/sesame/internal/dynamo"

// Contacts are a workspace's audience, each email claimed by one.
type Contacts struct{ *dynamo.Table }
