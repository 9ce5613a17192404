package httpapi_test

import (
	"net/http/httptest"
	"testing"

	"github.com/sesame-mail/sesame/internal/fail"
	"github.com/sesame-mail/sesame/internal/httpapi"
)

// A path id is a UUID in its lowercase form; anything else names no
// record: not found, what it would have named.
func TestPathUUID(t *testing.T) {
	const id = "0190f1c2-7b3a-7cde-8f00-123456789abc"
	for raw, want := range map[string]string{
		id:                                     id,
		"0190F1C2-7B3A-7CDE-8F00-123456789ABC": id,
		"nope":                                 "",
		"":                                     "",
	} {
		r := httptest.NewRequest("GET", "/api/v1/contacts/x", nil)
		r.SetPathValue("id", raw)
		got, err := httpapi.PathUUID(r, "contact")
		if got != want {
			t.Errorf("PathUUID(%q) = %q, want %q", raw, got, want)
		}
		if want == "" && (fail.KindOf(err) != fail.KindNotFound || fail.MessageOf(err) != "contact not found") {
			t.Errorf("PathUUID(%q): %v, want contact not found", raw, err)
		}
		if want != "" && err != nil {
			t.Errorf("PathUUID(%q): %v", raw, err)
		}
	}
}
