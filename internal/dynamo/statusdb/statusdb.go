// Package statusdb stores the delivery pipeline's writes: email statuses,
// the feed, clicks, suppressions and counters, in the one table of
// internal/dynamo.
//
// Storage packages are named <entity>db after the entity package whose
// types they keep (status), so both import without an alias. It imports the
// table core (internal/dynamo), the schema and entity packages, and another
// storage package only to write that entity's items in its own transactions
// (the allow-list in internal/api/entities_test.go says which and why).
package statusdb

import "github.com/sesame-mail/sesame/internal/dynamo"

// Statuses apply the delivery pipeline's changes to emails, the feed,
// clicks, suppressions and counters.
type Statuses struct{ *dynamo.Table }
