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
// a domain without a dot, lengths past RFC 5321's, and a display name
// holding RFC 2047 syntax that clients would decode into other text. The
// name's runs of white space become one space, as a folded header would
// make them.
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
	switch {
	case utf8.RuneCountInString(a.Name) > maxName:
		return mail.Address{}, fmt.Errorf("the display name is longer than %d characters", maxName)
	case strings.Contains(a.Name, "=?"):
		// Some clients decode an encoded-word even inside quotes, and would
		// show text that no check here has seen.
		return mail.Address{}, errors.New("the display name must not contain =? (encoded-word syntax)")
	}
	return *a, nil
}

// ParseSender reads an address a message is from or replies to: one
// address, as ParseAddress reads it, whose display name holds no address
// on another domain than its own (or a subdomain of it) — a refusal
// wrapping ErrForeignName. `"help@bank.example" <x@elsewhere.example>` is
// the classic way of passing one sender off as another, as most clients
// show the name alone; an address on the sender's own domain may be named.
func ParseSender(s string) (mail.Address, error) {
	a, err := ParseAddress(s)
	if err != nil {
		return a, err
	}
	if f := foreignAddressInName(a); f != "" {
		return a, fmt.Errorf("%w (%s); it shows %s", ErrForeignName, domainOf(a.Address), f)
	}
	return a, nil
}

// ErrForeignName is ParseSender's refusal of a display name showing an
// address on another domain.
var ErrForeignName = errors.New("the display name may not contain an address on another domain than the sender's")

// foreignAddressInName returns the first address in a's display name on
// another domain than a's own or its subdomains, "" when there is none.
// Look-alike at signs and dots count; invisible characters are ignored.
func foreignAddressInName(a mail.Address) string {
	own := strings.ToLower(strings.TrimSuffix(domainOf(a.Address), "."))
	name := []rune(strings.Map(foldLookalike, a.Name))
	for i, r := range name {
		if r != '@' {
			continue
		}
		start := i
		for start > 0 && isLocalRune(name[start-1]) {
			start--
		}
		end := i + 1
		for end < len(name) && isDomainRune(name[end]) {
			end++
		}
		domain := strings.ToLower(strings.Trim(string(name[i+1:end]), ".-"))
		if start == i || !strings.Contains(domain, ".") {
			continue // not an address: "@handle", "a@b"
		}
		if domain != own && !strings.HasSuffix(domain, "."+own) {
			return string(name[start:i]) + "@" + domain
		}
	}
	return ""
}

// foldLookalike maps characters shown like '@' or '.' to them and drops
// invisible ones (format characters such as a zero-width space).
func foldLookalike(r rune) rune {
	switch r {
	case '＠', '﹫':
		return '@'
	case '．', '。', '｡':
		return '.'
	}
	if unicode.Is(unicode.Cf, r) {
		return -1
	}
	return r
}

func isLocalRune(r rune) bool {
	return !unicode.IsSpace(r) && !strings.ContainsRune(`<>()[]",;:@`, r)
}

func isDomainRune(r rune) bool {
	return r == '.' || r == '-' || unicode.IsLetter(r) || unicode.IsDigit(r)
}
