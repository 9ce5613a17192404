package contact

// ValidTag reports whether s is a tag a contact may have: 1 to MaxTag
// characters of a-z, 0-9, _ and -. Segment filters name tags by it.
func ValidTag(s string) bool { return isKey(s, MaxTag, "-") }

// ValidPropertyKey reports whether s is a property key a contact may
// have: 1 to MaxPropertyKey characters of a-z, 0-9 and _. Segment
// filters name properties by it.
func ValidPropertyKey(s string) bool { return isKey(s, MaxPropertyKey, "") }
