package email

import (
	"crypto/sha256"
	"time"

	"github.com/google/uuid"
)

// DerivedID is the id of an email that a retried step must find again
// instead of sending twice: a UUIDv7 whose time is at (so the emails list
// keeps it in time order) and whose random bits are a hash of seed (what
// makes the email one: a campaign and a contact, a run and a step).
func DerivedID(seed string, at time.Time) string {
	sum := sha256.Sum256([]byte(seed))
	var id uuid.UUID
	copy(id[:], sum[:])
	ms := uint64(at.UnixMilli())
	for i := range 6 {
		id[i] = byte(ms >> (40 - 8*i))
	}
	id[6] = id[6]&0x0f | 0x70 // version 7
	id[8] = id[8]&0x3f | 0x80 // RFC 9562 variant
	return id.String()
}
