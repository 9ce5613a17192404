package eventhttp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/sesame-mail/sesame/internal/apikey"
	"github.com/sesame-mail/sesame/internal/event"
	"github.com/sesame-mail/sesame/internal/event/eventhttp"
	"github.com/sesame-mail/sesame/internal/httpapi"
)

// fakeStore answers ListEvents with its function and records the calls.
type fakeStore struct {
	list  func(ws, after string, limit int) ([][]byte, string, bool, error)
	calls []string
}

func (f *fakeStore) ListEvents(_ context.Context, ws, after string, limit int) ([][]byte, string, bool, error) {
	f.calls = append(f.calls, fmt.Sprintf("%s after=%q limit=%d", ws, after, limit))
	return f.list(ws, after, limit)
}

var cursors = httpapi.NewCursors([]byte("test-secret"))

// over is the feed's handlers over the store s.
func over(s event.Store) eventhttp.Handlers {
	return eventhttp.Handlers{Events: &event.Service{Store: s}, Cursors: cursors}
}

func list(t *testing.T, h eventhttp.Handlers, ws, query string) (*httptest.ResponseRecorder, error) {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, "/api/v1/events"+query, nil)
	r = r.WithContext(httpapi.WithPrincipal(r.Context(), apikey.Principal{WorkspaceID: ws, Environment: apikey.Live}))
	w := httptest.NewRecorder()
	return w, h.List(w, r)
}

type page struct {
	Data       []json.RawMessage `json:"data"`
	HasMore    bool              `json:"has_more"`
	NextCursor *string           `json:"next_cursor"`
}

func decode(t *testing.T, w *httptest.ResponseRecorder) page {
	t.Helper()
	if w.Code != http.StatusOK {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	var p page
	if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil {
		t.Fatal(err)
	}
	if !json.Valid(w.Body.Bytes()) || p.Data == nil {
		t.Fatalf("body %s: data must be an array", w.Body)
	}
	return p
}

// The feed answers the stored envelopes byte for byte: the same JSON
// webhooks carry.
func TestListAnswersStoredEnvelopes(t *testing.T) {
	stored := [][]byte{
		[]byte(`{"id":"evt_b","type":"email.opened","created_at":"2026-11-22T10:10:00.000Z","data":null}`),
		[]byte(`{"id":"evt_a","type":"email.delivered","created_at":"2026-11-22T10:00:01.250Z","data":null}`),
	}
	store := &fakeStore{list: func(ws, after string, limit int) ([][]byte, string, bool, error) {
		return stored, "position-of-evt_a", true, nil
	}}
	h := over(store)
	w, err := list(t, h, "ws_1", "?limit=2")
	if err != nil {
		t.Fatal(err)
	}
	p := decode(t, w)
	if len(p.Data) != 2 || string(p.Data[0]) != string(stored[0]) || string(p.Data[1]) != string(stored[1]) {
		t.Errorf("data = %s, want the stored envelopes in order", p.Data)
	}
	if !p.HasMore || p.NextCursor == nil {
		t.Fatalf("has_more %v, next_cursor %v", p.HasMore, p.NextCursor)
	}
	// The cursor carries the position, bound to the workspace's feed.
	if pos, err := cursors.Decode("ws_1|events", *p.NextCursor); err != nil || pos != "position-of-evt_a" {
		t.Errorf("cursor decodes to %q, %v", pos, err)
	}
	if _, err := list(t, h, "ws_1", "?cursor="+*p.NextCursor); err != nil {
		t.Errorf("next page: %v", err)
	}
	want := []string{`ws_1 after="" limit=2`, `ws_1 after="position-of-evt_a" limit=50`}
	if !slices.Equal(store.calls, want) {
		t.Errorf("store calls %q, want %q", store.calls, want)
	}
}

func TestListLastAndEmptyPages(t *testing.T) {
	cases := map[string][][]byte{
		"empty feed": nil,
		"last page":  {[]byte(`{"id":"evt_a","type":"email.delivered","created_at":"2026-11-22T10:00:01.250Z","data":null}`)},
	}
	for name, stored := range cases {
		t.Run(name, func(t *testing.T) {
			h := over(&fakeStore{list: func(string, string, int) ([][]byte, string, bool, error) {
				return stored, "", false, nil
			}})
			w, err := list(t, h, "ws_1", "")
			if err != nil {
				t.Fatal(err)
			}
			p := decode(t, w)
			if len(p.Data) != len(stored) || p.HasMore || p.NextCursor != nil {
				t.Errorf("page = %s", w.Body)
			}
			var raw map[string]json.RawMessage
			if err := json.Unmarshal(w.Body.Bytes(), &raw); err != nil {
				t.Fatal(err)
			}
			if string(raw["next_cursor"]) != "null" {
				t.Errorf("next_cursor = %s, want null", raw["next_cursor"])
			}
		})
	}
}

func TestListLimits(t *testing.T) {
	cases := map[string]struct {
		query string
		limit int
	}{
		"default":         {"", 50},
		"one":             {"?limit=1", 1},
		"hundred":         {"?limit=100", 100},
		"clamped":         {"?limit=500", 100},
		"huge is clamped": {"?limit=99999999999999999999999", 100},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			store := &fakeStore{list: func(string, string, int) ([][]byte, string, bool, error) { return nil, "", false, nil }}
			if _, err := list(t, over(store), "ws_1", tc.query); err != nil {
				t.Fatal(err)
			}
			if want := fmt.Sprintf(`ws_1 after="" limit=%d`, tc.limit); len(store.calls) != 1 || store.calls[0] != want {
				t.Errorf("store calls %q, want %q", store.calls, want)
			}
		})
	}
}

func TestListBadInput(t *testing.T) {
	mine := cursors.Encode("ws_1|events", "pos")
	cases := map[string]struct{ ws, query, param string }{
		"limit 0":                     {"ws_1", "?limit=0", "limit"},
		"limit negative":              {"ws_1", "?limit=-3", "limit"},
		"limit not a number":          {"ws_1", "?limit=ten", "limit"},
		"cursor garbage":              {"ws_1", "?cursor=@@not-a-cursor@@", "cursor"},
		"cursor of another workspace": {"ws_2", "?cursor=" + mine, "cursor"},
		"cursor of another list":      {"ws_1", "?cursor=" + cursors.Encode("ws_1|emails", "pos"), "cursor"},
		"cursor signed elsewhere":     {"ws_1", "?cursor=" + httpapi.NewCursors([]byte("other")).Encode("ws_1|events", "pos"), "cursor"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			store := &fakeStore{list: func(string, string, int) ([][]byte, string, bool, error) { return nil, "", false, nil }}
			_, err := list(t, over(store), tc.ws, tc.query)
			p, ok := httpapi.ProblemOf(err)
			if !ok || p.Code != httpapi.CodeInvalidField || p.Param != tc.param {
				t.Errorf("error = %v, want invalid_field about %s", err, tc.param)
			}
			if len(store.calls) != 0 {
				t.Errorf("bad input read the store: %v", store.calls)
			}
		})
	}
}

func TestListStoreFault(t *testing.T) {
	fault := errors.New("throttled")
	h := over(&fakeStore{list: func(string, string, int) ([][]byte, string, bool, error) {
		return nil, "", false, fault
	}})
	_, err := list(t, h, "ws_1", "")
	if _, ok := httpapi.ProblemOf(err); !errors.Is(err, fault) || ok {
		t.Errorf("error = %v, want the store fault as an internal error", err)
	}
}

func TestRoutes(t *testing.T) {
	rs := eventhttp.Handlers{}.Routes()
	if len(rs) != 1 || rs[0].Method != http.MethodGet || rs[0].Path != "/api/v1/events" || rs[0].Scope != apikey.EventsRead {
		t.Errorf("routes = %+v, want GET /api/v1/events with events:read", rs)
	}
}
