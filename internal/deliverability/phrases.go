package deliverability

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// spamPhrases are phrases content filters (SpamAssassin's rules, the
// providers' own) score as spam, as a reader writes them. They match
// whole words in any case, whatever punctuation or spacing separates the
// words within a sentence ("100% free", "100 % FREE", "risk-free" and
// "risk free" alike). Kept short on purpose: each is listed in
// docs/api.md.
var spamPhrases = []string{
	"100% free", "100% guaranteed", "act now", "apply now", "bad credit", "bank account details",
	"business proposal", "buy now", "cash bonus", "cialis", "claim your prize", "click below",
	"dear friend", "double your money", "earn extra cash", "free gift", "guaranteed income",
	"levitra", "limited time offer", "lose weight fast", "make money fast", "million dollars",
	"next of kin", "no credit check", "no prescription", "no strings attached",
	"once in a lifetime", "online pharmacy", "risk-free", "strictly confidential",
	"this is not spam", "viagra", "weird trick", "wire transfer", "work from home",
	"you have been selected",
}

// phraseIndex maps a first word to the phrases (by index in spamPhrases,
// as words) that start with it, so one pass over a text's words finds
// them all. Built on first use.
var phraseIndex = sync.OnceValue(func() map[string][]indexedPhrase {
	idx := map[string][]indexedPhrase{}
	for i, p := range spamPhrases {
		var words []string
		for _, w := range wordsOf(p) {
			words = append(words, p[w[0]:w[1]])
		}
		idx[words[0]] = append(idx[words[0]], indexedPhrase{i, words})
	}
	return idx
})

type indexedPhrase struct {
	n     int
	words []string
}

// spamPhrasesIn returns the spam phrases the texts name, each matched
// within one text, in the list's order, and how many times they occur in
// all.
func spamPhrasesIn(texts ...string) ([]string, int) {
	named := make([]bool, len(spamPhrases))
	var lower []byte
	n := 0
	for _, text := range texts {
		words := wordsOf(text)
		for i, w := range words {
			lower = appendLower(lower[:0], text[w[0]:w[1]])
			for _, p := range phraseIndex()[string(lower)] {
				if phraseAt(text, words[i:], p.words) {
					named[p.n] = true
					n++
				}
			}
		}
	}
	var out []string
	for i, ok := range named {
		if ok {
			out = append(out, spamPhrases[i])
		}
	}
	return out, n
}

// phraseAt reports whether words (offsets into text) start with want,
// with no sentence or line break between two of them.
func phraseAt(text string, words [][2]int, want []string) bool {
	if len(words) < len(want) {
		return false
	}
	for j, w := range want {
		if !strings.EqualFold(text[words[j][0]:words[j][1]], w) {
			return false
		}
		if j > 0 && strings.ContainsAny(text[words[j-1][1]:words[j][0]], ".!?;:\n\r") {
			return false
		}
	}
	return true
}

// wordsOf returns the start and end of every word of text: a run of
// letters and digits.
func wordsOf(text string) [][2]int {
	var words [][2]int
	start := -1
	for i, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			words = append(words, [2]int{start, i})
			start = -1
		}
	}
	if start >= 0 {
		words = append(words, [2]int{start, len(text)})
	}
	return words
}

// appendLower appends s in lower case to b.
func appendLower(b []byte, s string) []byte {
	for _, r := range s {
		b = utf8.AppendRune(b, unicode.ToLower(r))
	}
	return b
}
