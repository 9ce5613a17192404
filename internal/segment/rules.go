package segment

import "strings"

// valueKind is what value an op takes on a field.
type valueKind int

const (
	notAllowed   valueKind = iota // the op does not apply to the field
	valueNone                     // no value (exists, not_exists)
	valueString                   // a non-empty string
	valueBool                     // true or false
	valueTag                      // a tag: [a-z0-9_-], 1 to 64 characters
	valueNumber                   // a number
	valueScalar                   // a non-empty string, a number or a boolean
	valueStrings                  // an array of 1 to MaxInValues strings
	valueScalars                  // an array of 1 to MaxInValues scalars
	valueTime                     // an RFC 3339 timestamp
	valueDays                     // a whole number of days, 1 to MaxDays
)

// describe says what a value of kind k is, for a refusal.
var describe = map[valueKind]string{
	valueString:  "a non-empty string",
	valueBool:    "true or false",
	valueTag:     "a tag (1 to 64 characters a-z, 0-9, _ and -)",
	valueNumber:  "a number",
	valueScalar:  "a non-empty string, a number or a boolean",
	valueStrings: "an array of 1 to 100 non-empty strings",
	valueScalars: "an array of 1 to 100 non-empty strings, numbers or booleans",
	valueTime:    "an RFC 3339 timestamp such as 2026-01-31T00:00:00Z",
	valueDays:    "a whole number of days from 1 to 36500",
}

// text are the ops of a text field: email and the names.
var text = map[Op]valueKind{
	OpEq: valueString, OpNeq: valueString, OpContains: valueString, OpStartsWith: valueString,
	OpEndsWith: valueString, OpIn: valueStrings,
}

// optionalText adds exists and not_exists: a name may be unset.
var optionalText = with(text, map[Op]valueKind{OpExists: valueNone, OpNotExists: valueNone})

// fieldRules are the ops each field takes, and the value each op takes
// there. An op left out makes no sense on the field: gt on tags,
// within_days on a name, exists on email (every contact has one).
var fieldRules = map[FieldName]map[Op]valueKind{
	FieldEmail:      text,
	FieldFirstName:  optionalText,
	FieldLastName:   optionalText,
	FieldSubscribed: {OpEq: valueBool, OpNeq: valueBool},
	FieldTags:       {OpHasTag: valueTag, OpExists: valueNone, OpNotExists: valueNone},
	FieldCreatedAt: {
		OpGt: valueTime, OpGte: valueTime, OpLt: valueTime, OpLte: valueTime,
		OpWithinDays: valueDays, OpOlderThanDays: valueDays,
	},
	FieldProperties: {
		OpEq: valueScalar, OpNeq: valueScalar, OpContains: valueString, OpStartsWith: valueString,
		OpEndsWith: valueString, OpGt: valueNumber, OpGte: valueNumber, OpLt: valueNumber,
		OpLte: valueNumber, OpIn: valueScalars, OpExists: valueNone, OpNotExists: valueNone,
	},
}

func with(base, more map[Op]valueKind) map[Op]valueKind {
	out := map[Op]valueKind{}
	for _, m := range []map[Op]valueKind{base, more} {
		for op, k := range m {
			out[op] = k
		}
	}
	return out
}

// rule is the value op takes on field, or notAllowed.
func rule(field FieldName, op Op) valueKind { return fieldRules[field][op] }

// opsOf lists the ops field takes, in the docs' order.
func opsOf(field FieldName) string {
	var names []string
	for _, op := range allOps {
		if rule(field, op) != notAllowed {
			names = append(names, string(op))
		}
	}
	return strings.Join(names, ", ")
}
