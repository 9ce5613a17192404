// Package automationdb stores automations, their kept versions and
// listeners, and their runs, in the one table of internal/dynamo.
//
// Storage packages are named <entity>db after the entity package whose
// types they keep (automation), so both import without an alias. It imports
// the table core (internal/dynamo), the schema and entity packages, and
// another storage package only to write that entity's items in its own
// transactions (the allow-list in internal/api/entities_test.go says which
// and why).
package automationdb

import "github.com/sesame-mail/sesame/internal/dynamo"

type (
	// Automations are a workspace's automation definitions, their kept
	// versions and the listeners of each event name (the owner's side).
	Automations struct{ *dynamo.Table }
	// AutomationRuns are the runs: started by events (event_key and live
	// run claims, the per-minute count), executed by the runner, woken by
	// the tick.
	AutomationRuns struct{ *dynamo.Table }
)
