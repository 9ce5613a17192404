package review

import "strings"

// A mentioned brand is claimed where the email speaks as it or for the
// reader's account with it: as the first word of the subject or of the
// text, where a sender says who it is ("Amazon order 1234", "DHL parcel
// waiting"); after "your" or "dear"; after "sign in to" or "log into";
// before a colon ("Carrier: UPS" is a mention, "UPS: parcel waiting" a
// claim); or before one of claimNext ("Apple ID", "apple-security",
// "Amazon account").
var (
	claimBefore = []string{"your", "dear"}
	signIn      = []string{"in", "log", "sign", "login", "signin", "logon"}
	claimNext   = []string{
		"id", "account", "accounts", "login", "logon", "signin", "password", "security", "secure",
		"support", "team", "billing", "verification", "verify", "customer", "customers",
		"member", "members", "wallet", "bank", "card", "alert", "alerts", "notice",
		"notification", "notifications",
	}
)

// claimedBrands returns the brands text names, joined at its tags or with
// a word break at each of glued (splitBrands), a mentioned brand only
// where either reading claims it.
func claimedBrands(text []byte, glued []int) brandSet {
	named := namedBrands(text) | splitBrands(text, glued)
	m := named & brands().mentioned
	if m == 0 {
		return named
	}
	c := claims(text, m)
	if len(glued) > 0 {
		c |= claims(withBreaks(text, glued), m)
	}
	return named&^m | c
}

// withBreaks is text with a space at each of glued.
func withBreaks(text []byte, glued []int) []byte {
	out := make([]byte, 0, len(text)+len(glued))
	at := 0
	for _, g := range glued {
		out = append(append(out, text[at:g]...), ' ')
		at = g
	}
	return append(out, text[at:]...)
}

// claims returns the brands of want that text claims somewhere: it reads
// text word by word (as namedBrands does), keeping the two words before,
// while only spaces separate them.
func claims(text []byte, want brandSet) brandSet {
	ix := brands()
	var found brandSet
	var lower [32]byte
	var prev1, prev2 []byte
	last := 0 // end of the last word
	first := true
	for i := 0; i < len(text); {
		if !isWordByte(text[i]) {
			i++
			continue
		}
		end := i + 1
		for end < len(text) && isWordByte(text[end]) {
			end++
		}
		if !onlySpaces(text[last:i]) {
			prev1, prev2 = nil, nil
		}
		if n := end - i; n >= 2 && n < len(lower) {
			for k := range n {
				lower[k] = toLower(text[i+k])
			}
			for _, b := range ix.byFirstWord[string(lower[:n])] {
				if !want.has(b.index) || found.has(b.index) || !wordsFollow(text[end:], b.rest) {
					continue
				}
				brandEnd := end
				for _, w := range b.rest {
					brandEnd += 1 + len(w)
				}
				if first || claimAround(prev1, prev2, text[brandEnd:]) {
					found |= 1 << b.index
				}
			}
		}
		prev2, prev1 = prev1, text[i:end]
		last, i, first = end, end, false
	}
	return found
}

// claimAround reports whether the words before a brand (prev1 the
// nearer) or the text after it claim it.
func claimAround(prev1, prev2, after []byte) bool {
	if oneOf(prev1, claimBefore) || (oneOf(prev1, []string{"to", "into"}) && oneOf(prev2, signIn)) {
		return true
	}
	k := 0
	for k < len(after) && after[k] == ' ' {
		k++
	}
	if k < len(after) && after[k] == ':' {
		return true
	}
	for k < len(after) && (after[k] == ' ' || after[k] == '-') {
		k++
	}
	end := k
	for end < len(after) && isWordByte(after[end]) {
		end++
	}
	return oneOf(after[k:end], claimNext)
}

// oneOf reports whether word is one of list, ignoring ASCII case.
func oneOf(word []byte, list []string) bool {
	for _, w := range list {
		if len(word) == len(w) && strings.EqualFold(string(word), w) {
			return true
		}
	}
	return false
}

func onlySpaces(b []byte) bool {
	for _, c := range b {
		if c != ' ' {
			return false
		}
	}
	return true
}
