// Package timestamp is the one way Sesame writes a time for its clients:
// API bodies, the events feed and webhook payloads all use it, so an
// email's sent_at reads the same wherever it appears.
package timestamp

import "time"

// Format writes t as ISO 8601 in UTC with milliseconds, e.g.
// 2025-05-01T10:00:00.000Z.
func Format(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}

// Optional formats t, or is nil (JSON null) for what has not happened.
func Optional(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := Format(*t)
	return &s
}
