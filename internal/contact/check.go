package contact

import (
	"fmt"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sesame-mail/sesame/internal/compose"
	"github.com/sesame-mail/sesame/internal/fail"
)

// The caps of a contact.
const (
	MaxEmail         = 320 // characters
	MaxName          = 200 // characters
	MaxTags          = 50
	MaxTag           = 64 // characters
	MaxProperties    = 50
	MaxPropertyKey   = 64 // characters
	MaxPropertyValue = 1000
)

// A number property is one DynamoDB can store: 0, or a magnitude from
// 1e-130 up to (not including) 1e126, with at most 38 significant digits.
const (
	MinNumber = 1e-130
	MaxNumber = 1e126
	MaxDigits = 38
)

// isKey reports whether s is 1 to max characters of a-z, 0-9, _ and the
// extra characters (a tag also allows -).
func isKey(s string, max int, extra string) bool {
	if s == "" || len(s) > max {
		return false
	}
	for _, r := range s {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '_' && !strings.ContainsRune(extra, r) {
			return false
		}
	}
	return true
}

// Check normalizes p's email and checks p against the caps: an
// invalid_field error naming the exact param (properties.plan, tags[3]).
// A create also needs the email (the caller checks it is set).
func (p Patch) Check() (Patch, error) {
	if p.Email != nil {
		e, err := CheckEmail(*p.Email)
		if err != nil {
			return Patch{}, err
		}
		p.Email = &e
	}
	for param, v := range map[string]Nullable[string]{"first_name": p.FirstName, "last_name": p.LastName} {
		switch {
		case v.Value == nil:
		case utf8.RuneCountInString(*v.Value) > MaxName:
			return Patch{}, fail.Invalid(param, "%s is longer than %d characters", param, MaxName)
		case !utf8.ValidString(*v.Value) || strings.ContainsFunc(*v.Value, unicode.IsControl):
			// A name goes into subjects: one line of text, refused here
			// rather than changed where it is rendered.
			return Patch{}, fail.Invalid(param, "%s must be one line of text, without line breaks, tabs or other control characters", param)
		}
	}
	if p.Tags != nil {
		if err := checkTags(*p.Tags); err != nil {
			return Patch{}, err
		}
	}
	if len(p.Properties) > MaxProperties {
		return Patch{}, errTooManyProperties()
	}
	for k, v := range p.Properties {
		if err := checkProperty(k, v); err != nil {
			return Patch{}, err
		}
	}
	return p, nil
}

// CheckEmail returns the stored form of a contact's address: one bare
// address (no display name), at most MaxEmail characters.
func CheckEmail(s string) (string, error) {
	e := NormalizeEmail(s)
	if utf8.RuneCountInString(e) > MaxEmail {
		return "", fail.Invalid("email", "email is longer than %d characters", MaxEmail)
	}
	a, err := compose.ParseAddress(e)
	if err != nil || a.Name != "" || !strings.EqualFold(a.Address, e) {
		return "", fail.Invalid("email", "email must be one valid address such as jane@example.com")
	}
	return e, nil
}

func checkTags(tags []string) error {
	if len(tags) > MaxTags {
		return errTooManyTags()
	}
	for i, t := range tags {
		if !ValidTag(t) {
			return fail.Invalid(fmt.Sprintf("tags[%d]", i), "a tag is 1 to %d characters of a-z, 0-9, _ and -", MaxTag)
		}
	}
	return nil
}

func checkProperty(k string, v *Property) error {
	param := "properties." + k
	if !isKey(k, MaxPropertyKey, "") {
		return fail.Invalid(param, "a property key is 1 to %d characters of a-z, 0-9 and _", MaxPropertyKey)
	}
	switch {
	case v == nil:
	case v.Kind == KindString && utf8.RuneCountInString(v.String) > MaxPropertyValue:
		return fail.Invalid(param, "a string property is at most %d characters", MaxPropertyValue)
	case v.Kind == KindNumber && (math.IsNaN(v.Number) || math.IsInf(v.Number, 0)):
		return fail.Invalid(param, "a number property must be finite")
	case v.Kind == KindNumber && v.Number != 0 && (math.Abs(v.Number) < MinNumber || math.Abs(v.Number) >= MaxNumber):
		return fail.Invalid(param, "a number property is 0 or between 1e-130 and 1e126 in magnitude")
	case v.Kind == KindNumber && v.overPrecise:
		return fail.Invalid(param, "a number property has at most %d significant digits", MaxDigits)
	}
	return nil
}

func errTooManyProperties() error {
	return fail.Invalid("properties", "a contact has at most %d properties", MaxProperties)
}

func errTooManyTags() error {
	return fail.Invalid("tags", "a contact has at most %d tags", MaxTags)
}
