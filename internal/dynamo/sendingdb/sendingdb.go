// Package sendingdb stores the send path: the context read in one round
// trip, new emails with their Idempotency-Key claim, scheduled and held
// emails and the security review's verdicts, in the one table of
// internal/dynamo.
//
// Storage packages are named <entity>db after the entity package whose
// types they keep (sending), so both import without an alias. It imports
// the table core (internal/dynamo), the schema and entity packages, and
// another storage package only to write that entity's items in its own
// transactions (the allow-list in internal/api/entities_test.go says which
// and why).
package sendingdb

import "github.com/sesame-mail/sesame/internal/dynamo"

type (
	// Sends is the send path: the context read in one round trip, new
	// emails with their Idempotency-Key claim, and the undo of a failed
	// accept.
	Sends struct{ *dynamo.Table }
	// Held are emails held for the security review and their templates'
	// verdicts.
	Held struct{ *dynamo.Table }
)
