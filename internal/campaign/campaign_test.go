package campaign

import (
	"testing"
	"time"

	"github.com/google/uuid"
)

// A campaign email's id is the same for the same campaign and contact,
// differs for another contact, and is a UUIDv7 of the campaign's start.
func TestEmailID(t *testing.T) {
	start := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	a := EmailID("c1", "ann", start)
	if a != EmailID("c1", "ann", start) {
		t.Error("not stable")
	}
	if a == EmailID("c1", "bob", start) || a == EmailID("c2", "ann", start) {
		t.Error("not distinct")
	}
	id := uuid.MustParse(a)
	if id.Version() != 7 || id.Variant() != uuid.RFC4122 {
		t.Errorf("version %d variant %v", id.Version(), id.Variant())
	}
	sec, nsec := id.Time().UnixTime()
	if got := time.Unix(sec, nsec); !got.Equal(start) {
		t.Errorf("time = %v, want %v", got, start)
	}
}
