package email

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Tag is a name/value pair of the caller's metadata on an email: kept,
// returned on the Email object and in webhook data, filterable.
type Tag struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Limits of tags.
const (
	MaxTags   = 10
	MaxTagLen = 256
)

// CheckTags refuses more than MaxTags tags, a name given twice, and a
// name or value that is empty, over MaxTagLen or holds anything but ASCII
// letters, digits, _ and -. Every route that takes tags reads them with
// this one rule.
func CheckTags(tags []Tag) error {
	if len(tags) > MaxTags {
		return fmt.Errorf("tags takes at most %d tags", MaxTags)
	}
	seen := make(map[string]bool, len(tags))
	for i, t := range tags {
		if err := checkTagPart(t.Name); err != nil {
			return fmt.Errorf("tags[%d].name %w", i, err)
		}
		if err := checkTagPart(t.Value); err != nil {
			return fmt.Errorf("tags[%d].value %w", i, err)
		}
		if seen[t.Name] {
			return fmt.Errorf("tags[%d].name %q is given twice", i, t.Name)
		}
		seen[t.Name] = true
	}
	return nil
}

func checkTagPart(s string) error {
	if s == "" || len(s) > MaxTagLen {
		return fmt.Errorf("must be 1 to %d characters", MaxTagLen)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return errors.New("may hold only ASCII letters, digits, _ and -")
		}
	}
	return nil
}

// Key is the tag as the tag filter names it, "name:value": unambiguous,
// as neither part can hold a colon.
func (t Tag) Key() string { return t.Name + ":" + t.Value }

// ParseTagFilter reads the tag filter of a list, "name:value".
func ParseTagFilter(s string) (Tag, error) {
	name, value, ok := strings.Cut(s, ":")
	t := Tag{Name: name, Value: value}
	if !ok || checkTagPart(name) != nil || checkTagPart(value) != nil {
		return t, fmt.Errorf("tag must be name:value, each part 1 to %d ASCII letters, digits, _ or -", MaxTagLen)
	}
	return t, nil
}

// TagsOfKeys reads tags back from their keys, ordered by name.
func TagsOfKeys(keys []string) []Tag {
	tags := make([]Tag, 0, len(keys))
	for _, k := range keys {
		name, value, _ := strings.Cut(k, ":")
		tags = append(tags, Tag{Name: name, Value: value})
	}
	slices.SortFunc(tags, func(a, b Tag) int { return strings.Compare(a.Name, b.Name) })
	return tags
}
