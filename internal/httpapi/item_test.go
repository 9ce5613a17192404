package httpapi_test

import (
	"testing"

	"github.com/sesame-mail/sesame/internal/httpapi"
)

// An item's problem, named as for a request of its own, is scoped to the
// item once.
func TestNewItemError(t *testing.T) {
	for param, want := range map[string]string{
		"":                   "",
		"Idempotency-Key":    "",
		"body":               "emails[3]",
		"to":                 "emails[3].to",
		"attachments[0].url": "emails[3].attachments[0].url",
		"Foo":                "emails[3].Foo", // an unknown field spelled like a header
		"TO":                 "emails[3].TO",
	} {
		got := httpapi.NewItemError(httpapi.Problem{Code: "invalid_field", Message: "m", Param: param}, "emails[3]")
		if got.Code != "invalid_field" || got.Message != "m" {
			t.Errorf("%q: code and message %q %q, want them kept", param, got.Code, got.Message)
		}
		if (got.Param == nil) != (want == "") || got.Param != nil && *got.Param != want {
			t.Errorf("NewItemError(param %q) param = %v, want %q", param, got.Param, want)
		}
	}
}
