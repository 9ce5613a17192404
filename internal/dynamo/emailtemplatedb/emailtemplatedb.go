// Package emailtemplatedb stores a workspace's stored templates and their
// versions, in the one table of internal/dynamo.
//
// Storage packages are named <entity>db after the entity package whose
// types they keep (emailtemplate), so both import without an alias. It
// imports the table core (internal/dynamo), the schema and entity packages,
// and another storage package only to write that entity's items in its own
// transactions (the allow-list in internal/api/entities_test.go says which
// and why).
package emailtemplatedb

import "github.com/sesame-mail/sesame/internal/dynamo"

// Templates are a workspace's stored templates and their versions.
type Templates struct{ *dynamo.Table }
