package email

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxSubject is the longest subject, in characters: RFC 5322's line
// limit, which the message builder keeps every header line under by
// folding.
const MaxSubject = 998

// CheckSubject refuses a subject that is not one line of text: invalid
// UTF-8, control characters (line breaks, NUL, tabs, DEL and the C1
// controls) or over MaxSubject characters. Every route that takes a
// subject reads it with this one rule.
func CheckSubject(s string) error {
	switch {
	case !utf8.ValidString(s):
		return errors.New("subject must be valid UTF-8")
	case strings.ContainsFunc(s, unicode.IsControl):
		return errors.New("subject must not contain line breaks or other control characters")
	case utf8.RuneCountInString(s) > MaxSubject:
		return fmt.Errorf("subject must be at most %d characters", MaxSubject)
	}
	return nil
}
