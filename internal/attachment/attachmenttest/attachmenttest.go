// Package attachmenttest holds what the attachment and fetch tests share:
// a small valid PDF, base64 inputs and the check of a refused attachment.
package attachmenttest

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/fail"
)

// PDF is a minimal PDF file.
var PDF = []byte("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n")

// Ptr returns a pointer to s (optional fields of an attachment input).
func Ptr(s string) *string { return &s }

// B64 is b as an inline attachment's base64 content.
func B64(b []byte) *string { return Ptr(base64.StdEncoding.EncodeToString(b)) }

// WantError fails t unless err is a fail error of kind about the
// attachments field whose message holds every part.
func WantError(t *testing.T, err error, kind fail.Kind, parts ...string) {
	t.Helper()
	e, ok := fail.As(err)
	if !ok {
		t.Fatalf("error = %v (%T), want *fail.Error", err, err)
	}
	if e.Kind != kind || e.Param != "attachments" {
		t.Fatalf("error = %s/%s, want %s/attachments (%q)", e.Kind, e.Param, kind, e.Message)
	}
	for _, p := range parts {
		if !strings.Contains(e.Message, p) {
			t.Errorf("message %q does not contain %q", e.Message, p)
		}
	}
}
