package deliverability

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// currencies tell a number is money: a sign, or a code or word (lower
// case, whole word) near it.
var (
	currencySigns = "$€£"
	currencyWords = []string{"usd", "eur", "gbp", "dollar", "dollars", "euro", "euros", "pound", "pounds"}
	millionWords  = []string{"million", "billion", "trillion"}
)

// moneyReach is how far around a number, in bytes, a currency sign or
// word makes it money ("US$10.5 million", "2,500,000.00 (Two Million …
// Dollars)").
const moneyReach = 60

// largeSum returns the first sum of money of a million or more the texts
// name: a number of seven digits or more before any decimal point,
// grouped in thousands or after a currency sign ("2,500,000.00",
// "$1000000"), or a number followed by million, billion
// or trillion, with a currency sign or word within moneyReach bytes. It
// looks only around the digits, without copying the text.
func largeSum(texts ...string) (string, bool) {
	for _, text := range texts {
		for i := 0; i < len(text); {
			if text[i] < '0' || text[i] > '9' {
				i++
				continue
			}
			// The number: digits with , ' and . between them.
			end, digits, point, grouped := i, 0, false, false
			for end < len(text) && (isDigit(text[end]) || (text[end] == ',' || text[end] == '\'' || text[end] == '.') && end+1 < len(text) && isDigit(text[end+1])) {
				switch {
				case text[end] == '.':
					point = true
				case text[end] == ',' || text[end] == '\'':
					grouped = true
				case isDigit(text[end]) && !point:
					digits++
				}
				end++
			}
			// A long number is a sum when grouped in thousands or after a
			// currency sign: not an order, tracking or phone number.
			long := digits >= 7 && (grouped || signBefore(text[:i]))
			if long || millionAfter(text[end:]) {
				around := text[max(0, i-moneyReach):min(len(text), end+moneyReach)]
				if money(around) {
					return strings.TrimSpace(text[i:min(len(text), end+len(" million"))]), true
				}
			}
			i = end
		}
	}
	return "", false
}

// signBefore reports whether before ends with a currency sign.
func signBefore(before string) bool {
	r, _ := utf8.DecodeLastRuneInString(before)
	return r != utf8.RuneError && strings.ContainsRune(currencySigns, r)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// millionAfter reports whether rest starts with a space and "million",
// "billion" or "trillion" as a whole word.
func millionAfter(rest string) bool {
	rest = strings.TrimLeft(rest, " \u00a0")
	for _, w := range millionWords {
		if len(rest) >= len(w) && strings.EqualFold(rest[:len(w)], w) && (len(rest) == len(w) || !isLetterByte(rest[len(w)])) {
			return true
		}
	}
	return false
}

// money reports whether s holds a currency sign, or a currency code or
// word as a whole word in any case.
func money(s string) bool {
	if strings.ContainsAny(s, currencySigns) {
		return true
	}
	for start := 0; start < len(s); {
		r, n := utf8.DecodeRuneInString(s[start:])
		if !unicode.IsLetter(r) {
			start += n
			continue
		}
		end := start
		for end < len(s) && isLetterByte(s[end]) {
			end++
		}
		if end == start { // a letter outside ASCII
			start += n
			continue
		}
		for _, w := range currencyWords {
			if strings.EqualFold(s[start:end], w) {
				return true
			}
		}
		start = end
	}
	return false
}

func isLetterByte(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
