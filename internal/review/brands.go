package review

import (
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// impersonated lists brands that phishing mail most often names. An email
// naming one that the workspace does not own is held for review. At most
// 64 (brandSet).
var impersonated = []string{
	"paypal", "apple", "icloud", "microsoft", "office 365", "outlook", "google", "gmail",
	"amazon", "netflix", "facebook", "instagram", "whatsapp", "linkedin", "dhl", "fedex",
	"ups", "usps", "docusign", "dropbox", "adobe", "chase", "wells fargo", "bank of america",
	"citibank", "hsbc", "coinbase", "binance", "irs", "hmrc", "spotify", "ebay", "walmart",
	"steam", "yahoo", "norton", "mcafee", "stripe", "venmo", "zelle",
}

// mentioned are the brands of impersonated that honest mail names as a
// thing rather than as its sender: ordinary words ("a red apple", "steam"),
// the carriers a shop ships with ("shipped by USPS") and the products and
// platforms it mentions ("controller support on the Steam Deck", "follow
// us on Instagram"). One of these is a foreign brand only where the email
// speaks as the brand or for the reader's account with it (claims).
var mentioned = []string{
	"apple", "amazon", "chase", "steam", "outlook", "stripe", "norton",
	"dhl", "fedex", "ups", "usps",
	"google", "facebook", "instagram", "linkedin", "whatsapp",
}

// brandSet is a set of brands, bit i standing for impersonated[i].
type brandSet uint64

func (s brandSet) has(i int) bool { return s&(1<<i) != 0 }

// brandWords is one brand of impersonated: its index and its words after
// the first.
type brandWords struct {
	index int
	rest  []string
}

// brandIndex holds the brands by their first word, so one pass over a
// text's words finds every brand it names.
type brandIndex struct {
	byFirstWord map[string][]brandWords
	// mentioned is the set of the mentioned brands.
	mentioned brandSet
	// lengths holds, by the first two letters of a brand's first word
	// (lower case), the lengths that word may have (bit n: n letters): a
	// word that cannot start a brand is passed over without hashing it.
	lengths [128][128]uint32
}

// brands is built on first use: only the functions that review email
// need it.
var brands = sync.OnceValue(func() *brandIndex {
	ix := &brandIndex{byFirstWord: map[string][]brandWords{}}
	for i, b := range impersonated {
		words := strings.Fields(b)
		first := words[0]
		ix.byFirstWord[first] = append(ix.byFirstWord[first], brandWords{index: i, rest: words[1:]})
		ix.lengths[first[0]][first[1]] |= 1 << len(first)
		if slices.Contains(mentioned, b) {
			ix.mentioned |= 1 << i
		}
	}
	return ix
})

// foreignBrands returns the impersonation-prone brands that subject or
// the visible text of the page p name and that are not among own (the
// workspace's name, brands and domains), in the order of the impersonated
// list; a mentioned brand only where the text claims it. Text is read as
// it shows: invisible characters dropped, white space runs one space, and
// a brand split by markup ("Pay<b></b>Pal") still named. The subject and
// the page's text are scanned apart, as separate lines; the text once
// joined at its tags, and again around each tag that joins two words,
// with a word break there.
func (p *page) foreignBrands(subject string, own []string) []string {
	var t shownText
	t.writeString(subject)
	named := claimedBrands(t.b, nil) | claimedBrands(p.text.b, p.text.glued)
	var found []string
	for i, b := range impersonated {
		if named.has(i) && !ownsBrand(own, b) {
			found = append(found, b)
		}
	}
	return found
}

// brandReason is the review's reason for the foreign brands subject and
// p name, or "" for none.
func (p *page) brandReason(subject string, own []string) string {
	if brands := p.foreignBrands(subject, own); len(brands) > 0 {
		return ReasonForeignBrand + ": " + strings.Join(brands, ", ")
	}
	return ""
}

// namedBrands scans text once, word by word (a word is a run of ASCII
// letters, digits and underscores, as regexp's \b sees it), and returns
// the brands it names; a brand of several words matches only with single
// spaces between them. Linear in the text, whatever the list's length, and
// without allocating.
func namedBrands(text []byte) brandSet {
	ix := brands()
	var named brandSet
	var lower [32]byte
	for i := 0; i < len(text); {
		if !isWordByte(text[i]) {
			i++
			continue
		}
		end := i + 1
		for end < len(text) && isWordByte(text[end]) {
			end++
		}
		n := end - i
		if n >= 2 && n < len(lower) && ix.lengths[toLower(text[i])][toLower(text[i+1])]&(1<<n) != 0 {
			for k := range n {
				lower[k] = toLower(text[i+k])
			}
			for _, b := range ix.byFirstWord[string(lower[:n])] { // no allocation
				if wordsFollow(text[end:], b.rest) {
					named |= 1 << b.index
				}
			}
		}
		i = end
	}
	return named
}

// brandReach is the longest brand, spaces included ("bank of america";
// TestBrandReach): a brand named where a tag splits two words lies within
// it of the split.
const brandReach = 15

// longWord is longer than any brand's word: a word cut at this length
// names no brand, however it goes on.
const longWord = 16

// splitBrands returns the brands text names when a word break is read at
// each of glued (ascending offsets into text, each between two word
// bytes) and nowhere else is different: only the windows around them are
// scanned, overlapping windows merged, so it stays linear.
func splitBrands(text []byte, glued []int) brandSet {
	var named brandSet
	var window []byte
	for i := 0; i < len(glued); {
		start, end := max(0, glued[i]-brandReach), min(len(text), glued[i]+brandReach)
		j := i + 1
		for j < len(glued) && glued[j]-brandReach <= end {
			end = min(len(text), glued[j]+brandReach)
			j++
		}
		// Widen to whole words, or mark a word cut long as long.
		n := 0
		for start > 0 && isWordByte(text[start-1]) && n < longWord {
			start--
			n++
		}
		window = window[:0]
		if start > 0 && isWordByte(text[start-1]) {
			window = append(window, '_')
		}
		for n = 0; end < len(text) && isWordByte(text[end]) && n < longWord; n++ {
			end++
		}
		at := start
		for _, g := range glued[i:j] {
			window = append(append(window, text[at:g]...), ' ')
			at = g
		}
		window = append(window, text[at:end]...)
		if end < len(text) && isWordByte(text[end]) {
			window = append(window, '_')
		}
		named |= namedBrands(window)
		i = j
	}
	return named
}

// wordsFollow reports whether text starts with want's words, each after
// exactly one space and each a whole word.
func wordsFollow(text []byte, want []string) bool {
	for _, w := range want {
		if len(text) < 1+len(w) || text[0] != ' ' || !strings.EqualFold(string(text[1:1+len(w)]), w) {
			return false
		}
		text = text[1+len(w):]
		if len(text) > 0 && isWordByte(text[0]) {
			return false
		}
	}
	return true
}

// isWordByte reports whether c is an ASCII letter, digit or underscore,
// from a 128-bit set: bits 48–57 (digits) of the first word, 65–90, 95 and
// 97–122 (A–Z, _, a–z) of the second.
func isWordByte(c byte) bool {
	return c < 128 && wordBytes[c>>6]&(1<<(c&63)) != 0
}

var wordBytes = [2]uint64{0x03ff000000000000, 0x07fffffe87fffffe}

func toLower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// ownsBrand reports whether one of own (names, brands, domains) owns
// brand. A name owns it when the brand's words are whole words of it
// ("PayPal Holdings") or, joined, one such word. A domain (ownedDomain)
// owns it only by its registrable name, the label left of the public
// suffix: netflix.com, mail.netflix.com and netflix.co.uk own Netflix,
// bankofamerica.com and bank-of-america.com own Bank of America, but
// netflix-payments-update.com or netflixhelp.net, which anyone may
// register, do not. Merely containing a brand is not owning it:
// pineapple.shop does not own Apple.
func ownsBrand(own []string, brand string) bool {
	want := strings.Fields(brand)
	joined := strings.Join(want, "")
	for _, o := range own {
		if label, ok := registrableLabel(o); ok {
			if label == joined || slices.Equal(strings.Split(label, "-"), want) {
				return true
			}
			continue
		}
		words := strings.FieldsFunc(strings.ToLower(o), func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r)
		})
		for i := range words {
			if words[i] == joined || slices.Equal(words[i:min(i+len(want), len(words))], want) {
				return true
			}
		}
	}
	return false
}

// registrableLabel returns, for an own entry that is a domain name (ASCII
// letters, digits, hyphens and at least one dot, as a verified domain is),
// the lower-case label left of its public suffix as Organization reads it
// ("netflix" of mail.netflix.co.uk); ok is false for a name.
func registrableLabel(o string) (label string, ok bool) {
	d := strings.TrimSuffix(strings.ToLower(o), ".")
	if !strings.Contains(d, ".") || strings.IndexFunc(d, func(r rune) bool {
		return !('a' <= r && r <= 'z' || '0' <= r && r <= '9' || r == '-' || r == '.')
	}) >= 0 {
		return "", false
	}
	label, _, _ = strings.Cut(Organization(d), ".")
	return label, true
}

// Organization approximates host's registrable domain without the public
// suffix list (whose Go package links net/http): the last two labels
// (mail.example.com → example.com), or three when the last is a country
// code and the one before a common second level (shop.example.co.uk →
// example.co.uk).
func Organization(host string) string {
	labels := strings.Split(host, ".")
	n := 2
	if len(labels) >= 3 && len(labels[len(labels)-1]) == 2 && secondLevels[labels[len(labels)-2]] {
		n = 3
	}
	if len(labels) <= n {
		return host
	}
	return strings.Join(labels[len(labels)-n:], ".")
}

// secondLevels are the second-level labels under which country codes
// register names (co.uk, com.au, ne.jp, org.br, ac.nz, gov.in).
var secondLevels = map[string]bool{
	"co": true, "com": true, "net": true, "org": true, "gov": true, "edu": true, "ac": true, "ne": true, "or": true,
}

// shownText is text as a reader sees it, written piece by piece: format
// characters (soft hyphen, zero-width space and joiners, which render as
// nothing) dropped, and every run of white space (an HTML line break, a
// non-breaking space) one space; none leads or trails.
type shownText struct {
	b     []byte
	space bool // white space seen since the last character written
	// glued are the offsets where a tag sits between two word bytes with
	// no white space: tagAt is the last tag's, while nothing followed it.
	glued []int
	tagAt int
}

func (t *shownText) grow(n int) { t.b = make([]byte, 0, n) }

func (t *shownText) writeString(s string) { t.write([]byte(s)) }

// write appends text: runs of ASCII at once, the rest rune by rune (an
// invalid byte as U+FFFD, as ranging over a string reads it).
func (t *shownText) write(text []byte) {
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			if isASCIISpace(c) {
				t.space = true
				i++
				continue
			}
			end := i + 1
			for end < len(text) && text[end] < utf8.RuneSelf && !isASCIISpace(text[end]) {
				end++
			}
			t.char()
			if t.tagAt > 0 && t.tagAt == len(t.b) && isWordByte(c) {
				t.glued = append(t.glued, t.tagAt)
			}
			t.b = append(t.b, text[i:end]...)
			i = end
			continue
		}
		r, n := utf8.DecodeRune(text[i:])
		i += n
		switch {
		case unicode.Is(unicode.Cf, r):
		case unicode.IsSpace(r):
			t.space = true
		default:
			t.char()
			t.b = utf8.AppendRune(t.b, r)
		}
	}
}

// isASCIISpace is unicode.IsSpace for ASCII.
func isASCIISpace(c byte) bool { return c == ' ' || '\t' <= c && c <= '\r' }

// char writes the one space owed before a character, unless at the start.
func (t *shownText) char() {
	if t.space && len(t.b) > 0 {
		t.b = append(t.b, ' ')
	}
	t.space = false
}

// tag notes a tag after what was written: it glues two words if a word
// byte follows it at once.
func (t *shownText) tag() {
	t.tagAt = 0
	if n := len(t.b); n > 0 && !t.space && isWordByte(t.b[n-1]) {
		t.tagAt = n
	}
}
