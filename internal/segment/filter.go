// Package segment groups a workspace's contacts by a filter: the filter
// language (parsed from JSON into a typed tree, every refusal naming its
// param path), its evaluation against one contact, segment records, and
// the resolver that streams a filter's recipients (subscribed contacts
// not on the do-not-send list) for counts, samples and, in the bulk
// issue, a draft's frozen recipient set. A segment stores its filter,
// never its members. Its route is served by segmenthttp.
package segment

import (
	"encoding/json"
	"time"

	"github.com/sesame-mail/sesame/internal/contact"
)

// Limits of a filter.
const (
	// MaxDepth is how deep groups nest: the root group is depth 1.
	MaxDepth = 3
	// MaxConditions is how many conditions a filter holds in all.
	MaxConditions = 20
	// MaxInValues is how many values an in condition lists.
	MaxInValues = 100
	// MaxStringValue is the longest string value, in characters (a
	// property's string value is at most as long).
	MaxStringValue = 1000
	// MaxDays is the most days within_days and older_than_days take.
	MaxDays = 36500
)

// GroupKind is how a group combines its members.
type GroupKind string

// The groups: every member matches, at least one does, the one member
// does not.
const (
	All GroupKind = "all"
	Any GroupKind = "any"
	Not GroupKind = "not"
)

// FieldName is a contact field a condition reads.
type FieldName string

// The fields; Properties is written properties.<key>.
const (
	FieldEmail      FieldName = "email"
	FieldFirstName  FieldName = "first_name"
	FieldLastName   FieldName = "last_name"
	FieldSubscribed FieldName = "subscribed"
	FieldTags       FieldName = "tags"
	FieldCreatedAt  FieldName = "created_at"
	FieldProperties FieldName = "properties"
)

// Op is a condition's comparison.
type Op string

// The ops; which apply to which field is in fieldRules.
const (
	OpEq            Op = "eq"
	OpNeq           Op = "neq"
	OpContains      Op = "contains"
	OpStartsWith    Op = "starts_with"
	OpEndsWith      Op = "ends_with"
	OpGt            Op = "gt"
	OpGte           Op = "gte"
	OpLt            Op = "lt"
	OpLte           Op = "lte"
	OpIn            Op = "in"
	OpExists        Op = "exists"
	OpNotExists     Op = "not_exists"
	OpHasTag        Op = "has_tag"
	OpWithinDays    Op = "within_days"
	OpOlderThanDays Op = "older_than_days"
)

// allOps lists every op, in the order the docs give them.
var allOps = []Op{
	OpEq, OpNeq, OpContains, OpStartsWith, OpEndsWith, OpGt, OpGte, OpLt, OpLte,
	OpIn, OpExists, OpNotExists, OpHasTag, OpWithinDays, OpOlderThanDays,
}

// Filter is a parsed filter: its root is a group. Build one with Parse;
// it marshals back to the filter language, in canonical form.
type Filter struct {
	Root Group
}

// Group combines its members: All and Any take one or more, Not exactly
// one.
type Group struct {
	Kind    GroupKind
	Members []Node
}

// Node is a member of a group: a group or a condition, exactly one set.
type Node struct {
	Group     *Group
	Condition *Condition
}

// Condition compares one field of a contact with a value.
type Condition struct {
	Field Field
	Op    Op
	Value Value
}

// Field is a contact field; Property is the key of properties.<key>.
type Field struct {
	Name     FieldName
	Property string
}

func (f Field) String() string {
	if f.Name == FieldProperties {
		return string(FieldProperties) + "." + f.Property
	}
	return string(f.Name)
}

// Value is a condition's value; which part is set follows from the field
// and op (fieldRules): Scalar for eq, neq, contains, starts_with,
// ends_with, has_tag and the number comparisons of a property; List for
// in; Time for created_at's comparisons; Days for within_days and
// older_than_days; none for exists and not_exists.
type Value struct {
	Scalar contact.Property
	List   []contact.Property
	Time   time.Time
	Days   int
}

// MarshalJSON writes the filter in canonical form: every group and
// condition as parsed, a condition without a value without "value".
func (f Filter) MarshalJSON() ([]byte, error) { return json.Marshal(f.Root) }

func (g Group) MarshalJSON() ([]byte, error) {
	if g.Kind == Not && len(g.Members) == 1 {
		return json.Marshal(map[GroupKind]Node{Not: g.Members[0]})
	}
	return json.Marshal(map[GroupKind][]Node{g.Kind: g.Members})
}

func (n Node) MarshalJSON() ([]byte, error) {
	if n.Group != nil {
		return json.Marshal(n.Group)
	}
	return json.Marshal(n.Condition)
}

// conditionJSON is a condition as written.
type conditionJSON struct {
	Field string `json:"field"`
	Op    Op     `json:"op"`
	Value any    `json:"value,omitempty"`
}

func (c Condition) MarshalJSON() ([]byte, error) {
	out := conditionJSON{Field: c.Field.String(), Op: c.Op}
	switch rule(c.Field.Name, c.Op) {
	case valueString, valueBool, valueTag, valueNumber, valueScalar:
		out.Value = c.Value.Scalar
	case valueStrings, valueScalars:
		out.Value = c.Value.List
	case valueTime:
		out.Value = c.Value.Time.Format(time.RFC3339Nano)
	case valueDays:
		out.Value = c.Value.Days
	}
	return json.Marshal(out)
}
