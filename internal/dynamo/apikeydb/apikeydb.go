// Package apikeydb stores API keys: the per-request lookup and rate limit,
// and the console's key management, in the one table of internal/dynamo.
//
// Storage packages are named <entity>db after the entity package whose
// types they keep (apikey), so both import without an alias. It imports the
// table core (internal/dynamo), the schema and entity packages, and another
// storage package only to write that entity's items in its own transactions
// (the allow-list in internal/api/entities_test.go says which and why).
package apikeydb

import "github.com/sesame-mail/sesame/internal/dynamo"

// Keys are API keys: the per-request lookup and rate limit, and the
// console's key management.
type Keys struct{ *dynamo.Table }
