package timestamp_test

import (
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/timestamp"
)

func TestFormat(t *testing.T) {
	paris := time.FixedZone("CEST", 2*60*60)
	at := time.Date(2025, 5, 1, 12, 0, 0, 123456789, paris)
	if got, want := timestamp.Format(at), "2025-05-01T10:00:00.123Z"; got != want {
		t.Errorf("Format = %q, want %q (UTC, milliseconds)", got, want)
	}
	if got := timestamp.Optional(nil); got != nil {
		t.Errorf("Optional(nil) = %q, want nil", *got)
	}
	if got := timestamp.Optional(&at); got == nil || *got != "2025-05-01T10:00:00.123Z" {
		t.Errorf("Optional = %v", got)
	}
}
