// Package oauthdb stores the authorization server's clients, codes, grants
// and tokens (an access token is stored as an API key secret, so it uses
// apikeydb's item), in the one table of internal/dynamo.
//
// Storage packages are named <entity>db after the entity package whose
// types they keep (oauth), so both import without an alias. It imports the
// table core (internal/dynamo), the schema and entity packages, and another
// storage package only to write that entity's items in its own transactions
// (the allow-list in internal/api/entities_test.go says which and why).
package oauthdb

import "github.com/sesame-mail/sesame/internal/dynamo"

// OAuth are the authorization server's clients, codes, grants and
// tokens.
type OAuth struct{ *dynamo.Table }
