package httpapi_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/httpapi"
)

const base64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

// checkInvalid asserts err is a 400 invalid_field about param.
func checkInvalid(t *testing.T, err error, param string) {
	t.Helper()
	p, ok := httpapi.ProblemOf(err)
	if !ok {
		t.Fatalf("err = %v, want a client error", err)
	}
	if p.Code != httpapi.CodeInvalidField || p.Param != param || p.Status != 400 {
		t.Errorf("err = %+v, want invalid_field (400) about %s", p, param)
	}
}

func TestParsePage(t *testing.T) {
	const binding = "emails:ws_1:status=delivered"
	valid := testCursors.Encode(binding, "2025-05-01T10:00:00Z#em_01")
	cases := map[string]struct {
		query     string
		wantLimit int
		wantAfter string
		wantParam string // the parameter refused, "" when accepted
	}{
		"no parameters":      {query: "", wantLimit: 50},
		"limit 1":            {query: "limit=1", wantLimit: 1},
		"limit 50":           {query: "limit=50", wantLimit: 50},
		"limit 100":          {query: "limit=100", wantLimit: 100},
		"limit 101 clamped":  {query: "limit=101", wantLimit: 100},
		"limit 1e6 clamped":  {query: "limit=1000000", wantLimit: 100},
		"limit past int64":   {query: "limit=99999999999999999999", wantLimit: 100},
		"limit 0":            {query: "limit=0", wantParam: "limit"},
		"limit -1":           {query: "limit=-1", wantParam: "limit"},
		"limit far negative": {query: "limit=-99999999999999999999", wantParam: "limit"},
		"limit abc":          {query: "limit=abc", wantParam: "limit"},
		"limit 1.5":          {query: "limit=1.5", wantParam: "limit"},
		"limit 1e2":          {query: "limit=1e2", wantParam: "limit"},
		"limit empty":        {query: "limit=", wantParam: "limit"},
		"limit with space":   {query: "limit=%205", wantParam: "limit"},
		"valid cursor":       {query: "cursor=" + valid, wantLimit: 50, wantAfter: "2025-05-01T10:00:00Z#em_01"},
		"cursor and limit":   {query: "limit=10&cursor=" + valid, wantLimit: 10, wantAfter: "2025-05-01T10:00:00Z#em_01"},
		"garbage cursor":     {query: "cursor=!!!", wantParam: "cursor"},
		"empty cursor":       {query: "cursor=", wantParam: "cursor"},
		"short cursor":       {query: "cursor=AAAA", wantParam: "cursor"},
		"cursor of another workspace": {
			query: "cursor=" + testCursors.Encode("emails:ws_2:status=delivered", "2025-05-01T10:00:00Z#em_01"), wantParam: "cursor",
		},
		"cursor of other filters": {
			query: "cursor=" + testCursors.Encode("emails:ws_1:status=bounced", "2025-05-01T10:00:00Z#em_01"), wantParam: "cursor",
		},
		"cursor signed with another secret": {
			query: "cursor=" + httpapi.NewCursors([]byte("other secret")).Encode(binding, "2025-05-01T10:00:00Z#em_01"), wantParam: "cursor",
		},
		"cursor in standard base64": {
			query: "cursor=" + url.QueryEscape(strings.NewReplacer("-", "+", "_", "/").Replace(valid)+"=="), wantParam: "cursor",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/api/v1/emails?"+tc.query, nil)
			got, err := testCursors.ParsePage(r, binding)
			if tc.wantParam != "" {
				checkInvalid(t, err, tc.wantParam)
				return
			}
			if err != nil {
				t.Fatalf("err = %v", err)
			}
			if got.Limit != tc.wantLimit || got.After != tc.wantAfter {
				t.Errorf("page = %+v, want limit %d after %q", got, tc.wantLimit, tc.wantAfter)
			}
		})
	}
}

func TestCursorRoundTrip(t *testing.T) {
	cases := map[string]string{
		"one byte":            "x",
		"two bytes":           "xy",
		"three bytes":         "xyz",
		"timestamp and id":    "2025-05-01T10:00:00.123456789Z#em_01HXYZ",
		"with separators":     "a\x00b/c?d=e&f",
		"non-ASCII":           "Zoë#√",
		"long":                strings.Repeat("p", 500),
		"cursor-like content": "AAAAAAAAAAAAAAAAAAAAAA",
	}
	for name, position := range cases {
		t.Run(name, func(t *testing.T) {
			c := testCursors.Encode("emails:ws_1", position)
			if url.QueryEscape(c) != c {
				t.Errorf("cursor %q needs escaping in a query string", c)
			}
			got, err := testCursors.Decode("emails:ws_1", c)
			if err != nil || got != position {
				t.Errorf("Decode(Encode(%q)) = %q, %v", position, got, err)
			}
			if next := testCursors.NextCursor("emails:ws_1", position, true); next == nil {
				t.Error("NextCursor with more pages is nil")
			} else if got, err := testCursors.Decode("emails:ws_1", *next); err != nil || got != position {
				t.Errorf("NextCursor decodes to %q, %v; want %q", got, err, position)
			}
			if testCursors.NextCursor("emails:ws_1", position, false) != nil {
				t.Error("NextCursor without more pages is not nil")
			}
		})
	}
}

// A cursor reveals nothing of its position: not the id or time it holds,
// not even when the same position is paged twice.
func TestCursorIsOpaque(t *testing.T) {
	const position = "2025-05-01T10:00:00.123456789Z#01a20b5e-9890-7c53-b072-761f72a5d050"
	a, b := testCursors.Encode("emails:ws_1", position), testCursors.Encode("emails:ws_1", position)
	if a == b {
		t.Error("two cursors of one position are equal: the position shows through")
	}
	raw, err := base64.RawURLEncoding.DecodeString(a)
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range []string{"2025-05-01", "01a20b5e"} {
		if bytes.Contains(raw, []byte(part)) || strings.Contains(a, part) {
			t.Errorf("cursor %q shows %q", a, part)
		}
	}
}

// TestCursorTamper changes every character of valid cursors to every other
// cursor character: each edit must be refused.
func TestCursorTamper(t *testing.T) {
	const binding = "emails:ws_1"
	// A cursor is a 12-byte nonce, the sealed position and a 16-byte tag;
	// these positions make the last base64 group hold 2, 3 and 1 bytes.
	positions := map[string]string{
		"two-byte final group":   "2025-05-01T10:00:00Z#em_1",
		"three-byte final group": "2025-05-01T10:00:00Z#em_12",
		"one-byte final group":   "2025-05-01T10:00:00Z#em_123",
	}
	for name, position := range positions {
		t.Run(name, func(t *testing.T) {
			c := testCursors.Encode(binding, position)
			for i := range len(c) {
				for _, alt := range base64URL {
					if byte(alt) == c[i] {
						continue
					}
					edited := c[:i] + string(alt) + c[i+1:]
					if got, err := testCursors.Decode(binding, edited); err == nil {
						t.Fatalf("cursor %q edited at %d to %q accepted, position %q", c, i, edited, got)
					} else {
						checkInvalid(t, err, "cursor")
					}
				}
			}
			for name, edited := range map[string]string{
				"last character dropped": c[:len(c)-1],
				"character appended":     c + "A",
				"padding appended":       c + "=",
				"first character gone":   c[1:],
			} {
				if _, err := testCursors.Decode(binding, edited); err == nil {
					t.Errorf("%s: %q accepted", name, edited)
				}
			}
		})
	}
}

func TestListRouteCursorBoundToWorkspace(t *testing.T) {
	h := newHandler()

	mine := testCursors.Encode("things:ws_read", "pos_1")
	rec := serve(h, request{target: "/api/v1/things?limit=5&cursor=" + mine, key: keyRead})
	if rec.Code != 200 {
		t.Fatalf("own cursor: status %d, body %s", rec.Code, rec.Body)
	}
	if got := decodeData[page](t, rec); got != (page{Limit: 5, After: "pos_1"}) {
		t.Errorf("own cursor: page %+v", got)
	}

	rec = serve(h, request{target: "/api/v1/things?cursor=" + mine, key: keyOther})
	checkError(t, rec, 400, "invalid_field", "cursor")

	rec = serve(h, request{target: "/api/v1/things?limit=abc", key: keyRead})
	checkError(t, rec, 400, "invalid_field", "limit")
}

// ServeList pages the way every list route does: the store is asked for
// the cursor's position and the limit, each item is rendered, and the next
// cursor continues after the last one; a bad page or a store fault writes
// nothing.
func TestServeList(t *testing.T) {
	const binding = "things:ws_1"
	type call struct {
		after string
		limit int
	}
	var calls []call
	fetch := func(_ context.Context, after string, limit int) ([]int, string, bool, error) {
		calls = append(calls, call{after, limit})
		if after == "fail" {
			return nil, "", false, errors.New("store down")
		}
		return []int{1, 2}, "pos_2", after == "", nil
	}
	serveList := func(query string) (*httptest.ResponseRecorder, error) {
		calls = nil
		w := httptest.NewRecorder()
		r := httptest.NewRequest("GET", "/api/v1/things?"+query, nil)
		return w, httpapi.ServeList(w, r, testCursors, binding, fetch, strconv.Itoa)
	}

	w, err := serveList("limit=2")
	if err != nil {
		t.Fatal(err)
	}
	var first struct {
		Data       []string `json:"data"`
		HasMore    bool     `json:"has_more"`
		NextCursor string   `json:"next_cursor"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &first); err != nil || w.Code != 200 || w.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("first page: %d %s (%v)", w.Code, w.Body, err)
	}
	next := first.NextCursor
	if pos, err := testCursors.Decode(binding, next); !slices.Equal(first.Data, []string{"1", "2"}) || !first.HasMore || err != nil || pos != "pos_2" {
		t.Errorf("first page: %s; want items 1 and 2, more, and a cursor after pos_2 (got %q, %v)", w.Body, pos, err)
	}
	if !slices.Equal(calls, []call{{"", 2}}) {
		t.Errorf("store calls %v, want the first 2", calls)
	}

	w, err = serveList("cursor=" + next)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"data":["1","2"],"has_more":false,"next_cursor":null}` + "\n"; w.Body.String() != want {
		t.Errorf("last page: %s, want %s", w.Body, want)
	}
	if !slices.Equal(calls, []call{{"pos_2", httpapi.DefaultLimit}}) {
		t.Errorf("store calls %v, want the default limit after pos_2", calls)
	}

	w, err = serveList("limit=0")
	checkInvalid(t, err, "limit")
	if len(calls) != 0 || w.Body.Len() != 0 {
		t.Errorf("bad limit: store called %v, body %q", calls, w.Body)
	}
	w, err = serveList("cursor=" + testCursors.Encode(binding, "fail"))
	if err == nil || err.Error() != "store down" || w.Body.Len() != 0 {
		t.Errorf("store fault: err %v, body %q; want the store's error and no body", err, w.Body)
	}
}
