// Package campaigndb stores campaigns: drafts, their frozen recipients in
// chunks, approvals and status changes, in the one table of
// internal/dynamo.
//
// Storage packages are named <entity>db after the entity package whose
// types they keep (campaign), so both import without an alias. It imports
// the table core (internal/dynamo), the schema and entity packages, and
// another storage package only to write that entity's items in its own
// transactions (the allow-list in internal/api/entities_test.go says which
// and why).
package campaigndb

import "github.com/sesame-mail/sesame/internal/dynamo"

// Campaigns are bulk sends: drafts, their frozen recipients in chunks,
// approvals and status changes.
type Campaigns struct{ *dynamo.Table }
