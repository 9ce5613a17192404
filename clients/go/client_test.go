package sesame_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	sesame "github.com/sesame-mail/sesame/clients/go"
)

// seen is what a fake API received.
type seen struct {
	mu       sync.Mutex
	keys     []string
	bodies   []string
	auth     []string
	cursors  []string
	requests int
}

func (s *seen) record(r *http.Request) int {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests++
	s.keys = append(s.keys, r.Header.Get("Idempotency-Key"))
	s.bodies = append(s.bodies, string(body))
	s.auth = append(s.auth, r.Header.Get("Authorization"))
	s.cursors = append(s.cursors, r.URL.Query().Get("cursor"))
	return s.requests
}

// fakeAPI answers each request with answer(n), n counting from 1.
func fakeAPI(t *testing.T, answer func(n int, w http.ResponseWriter)) (*seen, string) {
	t.Helper()
	s := &seen{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		answer(s.record(r), w)
	}))
	t.Cleanup(srv.Close)
	return s, srv.URL
}

func answerError(w http.ResponseWriter, status int, retryAfter, code string, param any) {
	if retryAfter != "" {
		w.Header().Set("Retry-After", retryAfter)
	}
	w.Header().Set("X-Request-Id", "req-1")
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"code": code, "message": "m", "param": param, "request_id": "req-1"}})
}

const sent = `{"id":"0195a3c2-7c2e-7000-8000-000000000001","status":"sent","success":true,"message":"Email sent"}`

// waits records the delays the client waited out, without waiting.
type waits struct {
	mu sync.Mutex
	d  []time.Duration
}

func (w *waits) sleep(_ context.Context, d time.Duration) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.d = append(w.d, d)
	return nil
}

func newClient(t *testing.T, url string, opts ...sesame.Option) *sesame.Client {
	t.Helper()
	c, err := sesame.New(url, "ps_test_key", opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var email = sesame.Email{To: "ann@example.org", Subject: "Hi", Html: "<p>Hi</p>"}

func TestSendRetriesAfterRetryAfterWithTheSameKey(t *testing.T) {
	for _, status := range []int{http.StatusTooManyRequests, http.StatusServiceUnavailable} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			s, url := fakeAPI(t, func(n int, w http.ResponseWriter) {
				if n == 1 {
					answerError(w, status, "7", "rate_limited", nil)
					return
				}
				_, _ = io.WriteString(w, sent)
			})
			var w waits
			res, err := newClient(t, url, sesame.WithSleep(w.sleep)).Send(t.Context(), email)
			if err != nil || res.Status != "sent" {
				t.Fatalf("Send = %+v, %v", res, err)
			}
			if !slices.Equal(w.d, []time.Duration{7 * time.Second}) {
				t.Errorf("waited %v, want the Retry-After of 7s", w.d)
			}
			if s.requests != 2 || s.keys[0] == "" || s.keys[0] != s.keys[1] || s.bodies[0] != s.bodies[1] {
				t.Errorf("requests %d, Idempotency-Keys %q, bodies %q: want 2 alike with a key", s.requests, s.keys, s.bodies)
			}
			if s.auth[1] != "Bearer ps_test_key" {
				t.Errorf("retry's Authorization %q", s.auth[1])
			}
		})
	}
}

func TestSendKeepsTheCallersIdempotencyKey(t *testing.T) {
	s, url := fakeAPI(t, func(int, http.ResponseWriter) {})
	_, _ = newClient(t, url).Send(t.Context(), email, sesame.WithIdempotencyKey("order-42"))
	if s.keys[0] != "order-42" {
		t.Errorf("Idempotency-Key %q, want order-42", s.keys[0])
	}
}

func TestRetriesAreBounded(t *testing.T) {
	s, url := fakeAPI(t, func(_ int, w http.ResponseWriter) {
		answerError(w, http.StatusServiceUnavailable, "1", "service_unavailable", nil)
	})
	var w waits
	_, err := newClient(t, url, sesame.WithSleep(w.sleep), sesame.WithMaxRetries(2)).Send(t.Context(), email)
	var apiErr *sesame.Error
	if !errors.As(err, &apiErr) || apiErr.Code != "service_unavailable" || apiErr.RetryAfter != time.Second {
		t.Fatalf("err = %#v, want the last 503 as *sesame.Error", err)
	}
	if s.requests != 3 || len(w.d) != 2 {
		t.Errorf("%d requests, %d waits; want 3 and 2", s.requests, len(w.d))
	}
}

func TestNoRetry(t *testing.T) {
	cases := []struct {
		name       string
		status     int
		retryAfter string
		code       string
	}{
		// A monthly quota's Retry-After runs to next month: not waited out.
		{"wait over the maximum", http.StatusTooManyRequests, "86400", "monthly_quota_exceeded"},
		// tracking off before provisioning: 503 without Retry-After.
		{"503 without Retry-After", http.StatusServiceUnavailable, "", "service_unavailable"},
		{"409 with Retry-After", http.StatusConflict, "1", "idempotency_in_progress"},
		{"400", http.StatusBadRequest, "", "invalid_field"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, url := fakeAPI(t, func(_ int, w http.ResponseWriter) { answerError(w, c.status, c.retryAfter, c.code, "to") })
			var w waits
			_, err := newClient(t, url, sesame.WithSleep(w.sleep)).Send(t.Context(), email)
			var apiErr *sesame.Error
			if !errors.As(err, &apiErr) || apiErr.Code != c.code || apiErr.StatusCode != c.status {
				t.Fatalf("err = %#v, want %d %s", err, c.status, c.code)
			}
			if s.requests != 1 || len(w.d) != 0 {
				t.Errorf("%d requests, waits %v; want 1 request, no wait", s.requests, w.d)
			}
		})
	}
}

func TestErrorCarriesTheEnvelope(t *testing.T) {
	_, url := fakeAPI(t, func(_ int, w http.ResponseWriter) {
		answerError(w, http.StatusBadRequest, "", "invalid_field", "reply_to[1]")
	})
	_, err := newClient(t, url).Send(t.Context(), email)
	var apiErr *sesame.Error
	if !errors.As(err, &apiErr) {
		t.Fatalf("err = %v", err)
	}
	want := sesame.Error{StatusCode: 400, Code: "invalid_field", Message: "m", Param: "reply_to[1]", RequestID: "req-1"}
	if *apiErr != want {
		t.Errorf("error %+v, want %+v", *apiErr, want)
	}
	if got := apiErr.Error(); got != "sesame: 400 invalid_field (reply_to[1]): m [request req-1]" {
		t.Errorf("Error() = %q", got)
	}
}

// An answer from in front of the API (API Gateway's own 413 body) is still
// an *Error, with the text it gave.
func TestErrorOfAProxy(t *testing.T) {
	_, url := fakeAPI(t, func(_ int, w http.ResponseWriter) {
		w.WriteHeader(http.StatusRequestEntityTooLarge)
		_, _ = io.WriteString(w, `{"message": "Request Too Long"}`)
	})
	_, err := newClient(t, url).GetEmail(t.Context(), "0195a3c2-7c2e-7000-8000-000000000001")
	var apiErr *sesame.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 413 || apiErr.Code != "" || apiErr.Message != `{"message": "Request Too Long"}` {
		t.Errorf("err = %#v", err)
	}
}

func TestListsFollowTheCursor(t *testing.T) {
	pages := []string{
		`{"data":[{"id":"e1","type":"email.sent","created_at":"2026-11-20T08:30:00.000Z","data":null},{"id":"e2","type":"email.sent","created_at":"2026-11-20T08:30:00.000Z","data":null}],"has_more":true,"next_cursor":"c1"}`,
		`{"data":[{"id":"e3","type":"email.sent","created_at":"2026-11-20T08:30:00.000Z","data":null}],"has_more":true,"next_cursor":"c2"}`,
		`{"data":[{"id":"e4","type":"email.sent","created_at":"2026-11-20T08:30:00.000Z","data":null}],"has_more":false,"next_cursor":null}`,
	}
	s, url := fakeAPI(t, func(n int, w http.ResponseWriter) { _, _ = io.WriteString(w, pages[n-1]) })
	c := newClient(t, url)
	var ids []string
	for ev, err := range c.Events(t.Context(), sesame.ListEventsParams{}) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, ev.Id)
	}
	if !slices.Equal(ids, []string{"e1", "e2", "e3", "e4"}) || !slices.Equal(s.cursors, []string{"", "c1", "c2"}) {
		t.Errorf("ids %v with cursors %q", ids, s.cursors)
	}

	// Stopping early fetches no further page.
	s.requests, s.cursors = 0, nil
	for range c.Events(t.Context(), sesame.ListEventsParams{}) {
		break
	}
	if s.requests != 1 {
		t.Errorf("a break after one item made %d requests", s.requests)
	}
}

func TestListErrorEndsTheIteration(t *testing.T) {
	_, url := fakeAPI(t, func(_ int, w http.ResponseWriter) {
		answerError(w, http.StatusBadRequest, "", "invalid_field", "cursor")
	})
	n := 0
	for _, err := range newClient(t, url).Emails(t.Context(), sesame.ListEmailsParams{}) {
		n++
		var apiErr *sesame.Error
		if !errors.As(err, &apiErr) || apiErr.Param != "cursor" {
			t.Errorf("err = %v", err)
		}
	}
	if n != 1 {
		t.Errorf("yielded %d times, want the error once", n)
	}
}

func TestBatchItems(t *testing.T) {
	_, url := fakeAPI(t, func(_ int, w http.ResponseWriter) {
		_, _ = io.WriteString(w, `{"data":[{"index":0,"id":"0195a3c2-7c2e-7000-8000-000000000001","status":"sent","success":true,"message":"Email sent"},`+
			`{"index":1,"error":{"code":"invalid_field","message":"m","param":"emails[1].to"}}]}`)
	})
	items, err := newClient(t, url).SendBatch(t.Context(), []sesame.Email{email, email})
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 2 || items[0].Result == nil || items[0].Result.Status != "sent" || items[0].Err != nil {
		t.Fatalf("item 0 = %+v", items[0])
	}
	if items[1].Index != 1 || items[1].Result != nil || items[1].Err == nil || items[1].Err.Param != "emails[1].to" {
		t.Errorf("item 1 = %+v", items[1])
	}
}
