package segment

import (
	"slices"
	"strings"
	"time"

	"github.com/sesame-mail/sesame/internal/contact"
)

// day is the length of a day for within_days and older_than_days: 24
// hours back from now, not calendar days in some time zone.
const day = 24 * time.Hour

// Match reports whether contact c matches the filter at time now (the
// clock within_days and older_than_days count back from). It reads c
// only: whether c is subscribed and off the do-not-send list is the
// resolver's concern, not the filter's.
func (f Filter) Match(c contact.Contact, now time.Time) bool { return f.Root.match(c, now) }

func (g Group) match(c contact.Contact, now time.Time) bool {
	switch g.Kind {
	case All:
		for _, n := range g.Members {
			if !n.match(c, now) {
				return false
			}
		}
		return true
	case Any:
		for _, n := range g.Members {
			if n.match(c, now) {
				return true
			}
		}
		return false
	case Not:
		return len(g.Members) == 1 && !g.Members[0].match(c, now)
	}
	return false
}

func (n Node) match(c contact.Contact, now time.Time) bool {
	if n.Group != nil {
		return n.Group.match(c, now)
	}
	return n.Condition != nil && n.Condition.match(c, now)
}

func (cond Condition) match(c contact.Contact, now time.Time) bool {
	switch cond.Field.Name {
	case FieldTags:
		return matchTags(cond, c.Tags)
	case FieldCreatedAt:
		return matchTime(cond, c.CreatedAt, now)
	}
	subject, present := subjectOf(cond.Field, c)
	return matchScalar(cond, subject, present)
}

// subjectOf is the value of a scalar field of c; present is false for a
// name that is null or empty and a property that is not set.
func subjectOf(f Field, c contact.Contact) (contact.Property, bool) {
	switch f.Name {
	case FieldEmail:
		return contact.StringProperty(c.Email), true
	case FieldFirstName:
		return name(c.FirstName)
	case FieldLastName:
		return name(c.LastName)
	case FieldSubscribed:
		return contact.BoolProperty(c.Subscribed), true
	case FieldProperties:
		p, ok := c.Properties[f.Property]
		return p, ok
	}
	return contact.Property{}, false
}

func name(s *string) (contact.Property, bool) {
	if s == nil || *s == "" {
		return contact.Property{}, false
	}
	return contact.StringProperty(*s), true
}

// matchScalar applies cond to a string, number or boolean. Strings
// compare case-insensitively; values of different types are never equal
// (the string "1" is not the number 1); neq is exactly not eq, so it
// matches a contact without the field.
func matchScalar(cond Condition, subject contact.Property, present bool) bool {
	switch cond.Op {
	case OpExists:
		return present
	case OpNotExists:
		return !present
	case OpNeq:
		return !present || !equal(subject, cond.Value.Scalar)
	}
	if !present {
		return false
	}
	switch cond.Op {
	case OpEq:
		return equal(subject, cond.Value.Scalar)
	case OpIn:
		return slices.ContainsFunc(cond.Value.List, func(v contact.Property) bool { return equal(subject, v) })
	case OpContains, OpStartsWith, OpEndsWith:
		if subject.Kind != contact.KindString {
			return false
		}
		s, v := fold(subject.String), fold(cond.Value.Scalar.String)
		switch cond.Op {
		case OpContains:
			return strings.Contains(s, v)
		case OpStartsWith:
			return strings.HasPrefix(s, v)
		}
		return strings.HasSuffix(s, v)
	case OpGt, OpGte, OpLt, OpLte:
		if subject.Kind != contact.KindNumber {
			return false
		}
		return compare(cond.Op, subject.Number, cond.Value.Scalar.Number)
	}
	return false
}

// equal compares two values of the filter language: same type, and
// strings equal once case is folded.
func equal(a, b contact.Property) bool {
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case contact.KindString:
		return fold(a.String) == fold(b.String)
	case contact.KindNumber:
		return a.Number == b.Number
	case contact.KindBool:
		return a.Bool == b.Bool
	}
	return false
}

// fold is the case-insensitive form of a string: its lower case.
func fold(s string) string { return strings.ToLower(s) }

func compare[T int | float64](op Op, a, b T) bool {
	switch op {
	case OpGt:
		return a > b
	case OpGte:
		return a >= b
	case OpLt:
		return a < b
	case OpLte:
		return a <= b
	}
	return false
}

// matchTags applies has_tag, exists (at least one tag) or not_exists
// (none). Tags and has_tag's value are lower case by construction
// (contact.ValidTag), so has_tag compares them as they are.
func matchTags(cond Condition, tags []string) bool {
	switch cond.Op {
	case OpHasTag:
		return slices.Contains(tags, cond.Value.Scalar.String)
	case OpExists:
		return len(tags) > 0
	case OpNotExists:
		return len(tags) == 0
	}
	return false
}

// matchTime compares created with an instant, or with now less a number
// of days: within_days N is created at or after now-N days,
// older_than_days N strictly before.
func matchTime(cond Condition, created, now time.Time) bool {
	switch cond.Op {
	case OpWithinDays:
		return !created.Before(now.Add(-time.Duration(cond.Value.Days) * day))
	case OpOlderThanDays:
		return created.Before(now.Add(-time.Duration(cond.Value.Days) * day))
	}
	c := created.Compare(cond.Value.Time)
	return compare(cond.Op, c, 0)
}
