// Package signindb stores the dashboard's sign-in links, sessions and rate
// counts, in the one table of internal/dynamo.
//
// Storage packages are named <entity>db after the entity package whose
// types they keep (signin), so both import without an alias. It imports the
// table core (internal/dynamo), the schema and entity packages, and another
// storage package only to write that entity's items in its own transactions
// (the allow-list in internal/api/entities_test.go says which and why).
package signindb

import "github.com/sesame-mail/sesame/internal/dynamo"

// SignIns are the dashboard's sign-in links, sessions and rate counts.
type SignIns struct{ *dynamo.Table }
