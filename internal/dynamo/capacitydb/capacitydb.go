// Package capacitydb stores the per-second ledger of SES sending capacity
// (sending/capacity) shared by every sender, in the one table of
// internal/dynamo.
//
// Storage packages are named <entity>db after the entity package whose
// types they keep (sending/capacity), so both import without an alias. It
// imports the table core (internal/dynamo), the schema and entity packages,
// and another storage package only to write that entity's items in its own
// transactions (the allow-list in internal/api/entities_test.go says which
// and why).
package capacitydb
