// Package emaildb stores the emails a workspace sent, their kept content
// and their clicks; the item shapes the send path and the status pipeline
// write are exported for their repositories, in the one table of
// internal/dynamo.
//
// Storage packages are named <entity>db after the entity package whose
// types they keep (email), so both import without an alias. It imports the
// table core (internal/dynamo), the schema and entity packages, and another
// storage package only to write that entity's items in its own transactions
// (the allow-list in internal/api/entities_test.go says which and why).
package emaildb

import "github.com/sesame-mail/sesame/internal/dynamo"

type (
	// Emails are the emails a workspace sent, read back by the API.
	Emails struct{ *dynamo.Table }
	// Clicks are the recorded clicks of an email.
	Clicks struct{ *dynamo.Table }
)
