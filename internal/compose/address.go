package compose

import (
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits of an address: RFC 5321's for the address itself, and one of ours
// for the display name, so that no header holding it outgrows a line.
const (
	maxLocalPart = 64
	maxAddress   = 254
	maxName      = 256 // characters
)

// ParseAddress is Sesame's one reading of an email address: what the API
// accepts (to, from, reply_to), what the owner configures (senders,
// suppressions) and what Build writes. It takes exactly one address, with
// or without a display name, and refuses what would not survive a header:
// line breaks and other control characters, an empty list item ("a@b.c,"),
// a domain without a dot and lengths past RFC 5321's. The name's runs of
// white space become one space, as a folded header would make them.
func ParseAddress(s string) (mail.Address, error) {
	if strings.ContainsAny(s, "\r\n") {
		return mail.Address{}, errors.New("line breaks are not allowed")
	}
	a, err := mail.ParseAddress(s)
	if err != nil {
		if list, lerr := mail.ParseAddressList(s); lerr == nil && len(list) > 1 {
			return mail.Address{}, fmt.Errorf("%d addresses given", len(list))
		}
		return mail.Address{}, fmt.Errorf("cannot parse %q as one address", s)
	}
	at := strings.LastIndexByte(a.Address, '@')
	switch {
	case at <= 0 || !strings.Contains(a.Address[at:], "."):
		return mail.Address{}, fmt.Errorf("%q has no domain", a.Address)
	case at > maxLocalPart:
		return mail.Address{}, fmt.Errorf("the part before @ is longer than %d characters", maxLocalPart)
	case len(a.Address) > maxAddress:
		return mail.Address{}, fmt.Errorf("the address is longer than %d characters", maxAddress)
	}
	if strings.ContainsFunc(a.Name, unicode.IsControl) {
		return mail.Address{}, errors.New("the display name must not contain control characters")
	}
	a.Name = strings.Join(strings.Fields(a.Name), " ")
	if utf8.RuneCountInString(a.Name) > maxName {
		return mail.Address{}, fmt.Errorf("the display name is longer than %d characters", maxName)
	}
	return *a, nil
}
