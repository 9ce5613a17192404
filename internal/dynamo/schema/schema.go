// Package schema is the single table's definition: key attributes, indexes
// and TTL, and the size DynamoDB bills an item at (ItemSize). It is a leaf package so the CDK stack (infra/) uses the same
// definition as the local setup (dynamo.EnsureTable) without compiling the
// repositories.
package schema

import "slices"

// Attribute names of the table's keys. Every key is a string.
const (
	AttrPK     = "pk"
	AttrSK     = "sk"
	AttrGSI1PK = "gsi1pk"
	AttrGSI1SK = "gsi1sk"
	// AttrExpiresAt holds a Unix time in seconds; DynamoDB TTL deletes the
	// item some time after it (idempotency records, rate-limit windows).
	AttrExpiresAt = "expires_at"
)

// Index is a global secondary index projecting all attributes.
type Index struct {
	Name         string
	PartitionKey string
	SortKey      string
}

// Schema describes the table's primary key, its GSIs and its TTL attribute.
type Schema struct {
	PartitionKey string
	SortKey      string
	Indexes      []Index
	TTLAttribute string
}

// GSI1 serves secondary access paths: the workspaces list, a workspace's
// domains newest first, held emails by template.
const GSI1 = "gsi1"

// Table is the one table definition of Sesame.
var Table = Schema{
	PartitionKey: AttrPK,
	SortKey:      AttrSK,
	Indexes: []Index{
		{Name: GSI1, PartitionKey: AttrGSI1PK, SortKey: AttrGSI1SK},
	},
	TTLAttribute: AttrExpiresAt,
}

// KeyAttributes lists every attribute used in a key of the table or an
// index, each once.
func (s Schema) KeyAttributes() []string {
	out := []string{s.PartitionKey, s.SortKey}
	for _, ix := range s.Indexes {
		for _, a := range []string{ix.PartitionKey, ix.SortKey} {
			if !slices.Contains(out, a) {
				out = append(out, a)
			}
		}
	}
	return out
}
