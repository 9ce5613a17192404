// Package metricsdb stores the daily counters, in the one table of
// internal/dynamo.
//
// Storage packages are named <entity>db after the entity package whose
// types they keep (metrics), so both import without an alias. It imports
// the table core (internal/dynamo), the schema and entity packages, and
// another storage package only to write that entity's items in its own
// transactions (the allow-list in internal/api/entities_test.go says which
// and why).
package metricsdb

import "github.com/sesame-mail/sesame/internal/dynamo"

// Metrics are the daily counters.
type Metrics struct{ *dynamo.Table }
