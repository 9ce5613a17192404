package automation

import (
	"fmt"
	"strings"
)

// MaxEventName is an event name's length.
const MaxEventName = 100

// CheckEventName reports why s is not an event name: lowercase letters,
// digits, _, - and ., starting with a letter or digit. An uppercase name
// is refused, not lowercased (docs/decisions.md, "Event names"): a name
// that matched only after lowercasing would hide a caller's typo in one
// place and not in another.
func CheckEventName(s string) error {
	switch {
	case s == "":
		return fmt.Errorf("an event name is not empty")
	case len(s) > MaxEventName:
		return fmt.Errorf("an event name has at most %d characters", MaxEventName)
	case strings.ContainsFunc(s, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' }):
		return fmt.Errorf("an event name has no spaces: use lowercase letters, digits, _, - and . (e.g. cart_abandoned)")
	case strings.ToLower(s) != s:
		return fmt.Errorf("an event name is lowercase: send %q", strings.ToLower(s))
	}
	for i, r := range s {
		lower, digit := r >= 'a' && r <= 'z', r >= '0' && r <= '9'
		if !lower && !digit && (i == 0 || r != '_' && r != '-' && r != '.') {
			return fmt.Errorf("an event name is lowercase letters, digits, _, - and ., starting with a letter or digit (e.g. cart_abandoned)")
		}
	}
	return nil
}
