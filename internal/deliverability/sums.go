package deliverability

import (
	"strings"
	"unicode"
)

// millionWords name a million or more after a number ("2.5 million").
var millionWords = []string{"million", "billion", "trillion"}

// currencyWords tell a number is money: a sign before it or a word or
// code near it.
var currencyWords = []string{"$", "€", "£", "usd", "eur", "gbp", "dollar", "dollars", "euro", "euros", "pound", "pounds"}

// largeSum returns the first sum of money of a million or more the texts
// name: digits with separators worth 1,000,000 or more, or a number
// followed by million, billion or trillion, with a currency sign or word
// within a few words of it. One pass over each text's words.
func largeSum(texts ...string) (string, bool) {
	for _, text := range texts {
		words := strings.FieldsFunc(text, func(r rune) bool {
			return unicode.IsSpace(r) || r == '(' || r == ')'
		})
		for i, w := range words {
			if !large(w, words[i+1:]) {
				continue
			}
			if money(words[max(0, i-2):min(len(words), i+5)]) {
				return strings.Join(words[i:min(len(words), i+3)], " "), true
			}
		}
	}
	return "", false
}

// large reports whether word, read with the words after it, is a number
// of a million or more: seven digits or more before any decimal point
// ("2,500,000.00", "$1000000"), or a number before "million" and the like.
func large(word string, next []string) bool {
	digits, seen := 0, false
	for _, r := range word {
		switch {
		case unicode.IsDigit(r):
			digits++
			seen = true
		case r == ',' || r == '\'' || r == '$' || r == '€' || r == '£' || unicode.IsLetter(r) && !seen:
		default:
			if r == '.' && seen {
				return digits >= 7 || millionNext(next)
			}
			if seen {
				return digits >= 7
			}
		}
	}
	return seen && (digits >= 7 || millionNext(next))
}

func millionNext(next []string) bool {
	if len(next) == 0 {
		return false
	}
	w := strings.ToLower(strings.TrimFunc(next[0], func(r rune) bool { return !unicode.IsLetter(r) }))
	for _, m := range millionWords {
		if w == m {
			return true
		}
	}
	return false
}

// money reports whether a currency sign, word or code is among words.
func money(words []string) bool {
	for _, w := range words {
		lw := strings.ToLower(w)
		for _, c := range currencyWords {
			if strings.ContainsAny(c, "$€£") {
				if strings.Contains(lw, c) {
					return true
				}
				continue
			}
			if strings.Trim(lw, ".,;:!?") == c || strings.HasPrefix(lw, c) && len(c) == 3 && !unicode.IsLetter(rune(lw[min(len(lw)-1, 3)])) {
				return true
			}
		}
	}
	return false
}
