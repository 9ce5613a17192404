package httpapi

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/fail"
)

// FuzzCursor: a cursor opens to its position under its own binding and
// secret only; any other cursor, and any query string at all, is refused
// as invalid_field naming the parameter, never a fault or a page the
// client did not ask for.
func FuzzCursor(f *testing.F) {
	f.Add([]byte("secret"), "emails|ws1|status=sent", "2026-11-22T10:00:00Z#01a2", "AAAA", "limit=5&cursor=%%%garbage")
	f.Fuzz(func(t *testing.T, secret []byte, binding, position, cursor, rawQuery string) {
		c := NewCursors(secret)
		sealed := c.Encode(binding, position)
		if got, err := c.Decode(binding, sealed); err != nil || got != position {
			t.Fatalf("Decode(Encode(%q)) = %q, %v", position, got, err)
		}
		if _, err := c.Decode(binding+"x", sealed); !invalid(err, "cursor") {
			t.Fatalf("under another binding: %v, want invalid cursor", err)
		}
		if _, err := NewCursors(append(secret, 'x')).Decode(binding, sealed); !invalid(err, "cursor") {
			t.Fatalf("under another secret: %v, want invalid cursor", err)
		}
		if cursor != sealed {
			if _, err := c.Decode(binding, cursor); !invalid(err, "cursor") {
				t.Fatalf("Decode(%q) = %v, want invalid cursor", cursor, err)
			}
		}
		if err := checkQuery(rawQuery); err != nil {
			// A parameter without a name has none to give (param null).
			if e, ok := fail.As(err); !ok || e.Kind != fail.KindInvalid || e.Param == "" && !strings.Contains(e.Message, "without a name") {
				t.Fatalf("checkQuery(%q) = %v, want invalid naming a parameter", rawQuery, err)
			}
			return
		}
		r := &http.Request{URL: &url.URL{RawQuery: rawQuery}}
		page, err := c.ParsePage(r, binding)
		switch {
		case err != nil && !invalid(err, "limit") && !invalid(err, "cursor"):
			t.Fatalf("ParsePage(%q) = %v, want invalid limit or cursor", rawQuery, err)
		case err == nil && (page.Limit < 1 || page.Limit > MaxLimit):
			t.Fatalf("ParsePage(%q): limit %d", rawQuery, page.Limit)
		}
	})
}

func invalid(err error, param string) bool {
	e, ok := fail.As(err)
	return ok && e.Kind == fail.KindInvalid && e.Param == param
}
