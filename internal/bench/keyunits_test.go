package bench

import (
	"cmp"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/sesame-mail/sesame/internal/dynamo"
)

// Ids in a partition key, for its class in the cost breakdown.
var (
	keyUUID = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	keyHash = regexp.MustCompile(`[0-9a-f]{32,}`)
	keyNum  = regexp.MustCompile(`#[0-9]+\b`)
)

// keyClass is partition key pk with its workspace, ids and shard as
// placeholders: WS#<ws>#EMAIL#<shard>, WS#<ws>#BODY#<id>.
func keyClass(pk string) string {
	if class, n := dynamo.Spread(pk); n > 0 {
		return class
	}
	if rest, ok := strings.CutPrefix(pk, "WS#"); ok {
		if ws := keyUUID.FindString(rest); ws != "" {
			pk = "WS#" + strings.Replace(rest, ws, "<ws>", 1)
		}
	}
	return keyNum.ReplaceAllString(keyHash.ReplaceAllString(keyUUID.ReplaceAllString(pk, "<id>"), "<hash>"), "#<n>")
}

// keyUnits are the read and write units per email a function billed on
// each class of partition key, largest first: one line each.
func keyUnits(heat map[string]units, emails int) []string {
	byClass := map[string]units{}
	for pk, u := range heat {
		c := byClass[keyClass(pk)]
		c.read += u.read / float64(emails)
		c.write += u.write / float64(emails)
		byClass[keyClass(pk)] = c
	}
	classes := slices.SortedFunc(maps.Keys(byClass), func(a, b string) int {
		ua, ub := byClass[a], byClass[b]
		return cmp.Or(cmp.Compare(ub.write+ub.read/5, ua.write+ua.read/5), cmp.Compare(a, b))
	})
	out := make([]string, 0, len(classes))
	for _, c := range classes {
		out = append(out, fmt.Sprintf("      %-48s %6.2f RRU %6.2f WRU an email", c, byClass[c].read, byClass[c].write))
	}
	return out
}
