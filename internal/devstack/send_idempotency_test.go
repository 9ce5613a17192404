package devstack_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/dynamo/dynamotest"
	"github.com/sesame-mail/sesame/internal/sending"
)

func TestSendIdempotency(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	s := newSendWS(t, e, defaultSender())
	other := newSendWS(t, e, defaultSender())

	t.Run("replay", func(t *testing.T) {
		key := uuid.NewString()
		req := msg("idem", nil)
		first := e.postTo(t, e.url, s.key, "/api/v1/send", req, "Idempotency-Key", key).sent(t, http.StatusOK)
		again := e.postTo(t, e.url, s.key, "/api/v1/send", req, "Idempotency-Key", key).sent(t, http.StatusOK)
		if again.ID != first.ID || again.Status != "sent" {
			t.Errorf("replay = %+v, want id %s sent", again, first.ID)
		}
		if n := len(e.ses.sendsTo(req["to"].(string))); n != 1 {
			t.Errorf("%d SES sends, want 1", n)
		}
		changed := msg("idem", map[string]any{"to": req["to"], "subject": req["subject"], "html": "<p>Another text</p>"})
		e.postTo(t, e.url, s.key, "/api/v1/send", changed, "Idempotency-Key", key).
			wantError(t, http.StatusConflict, "idempotency_conflict", "Idempotency-Key")
	})
	t.Run("replay of a held answer", func(t *testing.T) {
		key := uuid.NewString()
		req := msg("idemheld", map[string]any{"html": "<article>new layout</article>"})
		first := e.postTo(t, e.url, s.key, "/api/v1/send", req, "Idempotency-Key", key).sent(t, http.StatusAccepted)
		again := e.postTo(t, e.url, s.key, "/api/v1/send", req, "Idempotency-Key", key).sent(t, http.StatusAccepted)
		if again.ID != first.ID || again.Status != "held" {
			t.Errorf("replay = %+v, want id %s held", again, first.ID)
		}
	})
	t.Run("concurrent requests with one key", func(t *testing.T) {
		key := uuid.NewString()
		req := msg("idemrace", nil)
		const n = 10
		answers := make([]response, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				answers[i], errs[i] = e.do(e.url, s.key, http.MethodPost, "/api/v1/send", req, "Idempotency-Key", key)
			})
		}
		wg.Wait()
		// Each twin gets the one answer, or is told to retry while the
		// first request is still running; a retry then replays it.
		var id string
		for i, r := range answers {
			if errs[i] != nil {
				t.Fatal(errs[i])
			}
			if r.status == http.StatusConflict {
				r.wantError(t, http.StatusConflict, "idempotency_in_progress", "Idempotency-Key")
				if r.header.Get("Retry-After") == "" {
					t.Error("in-progress answer without Retry-After")
				}
				continue
			}
			b := r.sent(t, http.StatusOK)
			if id == "" {
				id = b.ID
			}
			if b.ID != id || b.Status != "sent" {
				t.Errorf("answer %d = %+v, want id %s sent", i, b, id)
			}
		}
		if id == "" {
			t.Fatal("no request was answered with the send")
		}
		if got := len(e.ses.sendsTo(req["to"].(string))); got != 1 {
			t.Errorf("%d SES sends for %d concurrent requests with one key, want 1", got, n)
		}
		again := e.postTo(t, e.url, s.key, "/api/v1/send", req, "Idempotency-Key", key).sent(t, http.StatusOK)
		if again.ID != id {
			t.Errorf("retry after the race = %s, want the one send %s", again.ID, id)
		}
	})
	t.Run("a refused request does not use up the key", func(t *testing.T) {
		key := strings.Repeat("r", 255) // the longest key allowed
		req := msg("idemrefused", nil)
		bad := msg("idemrefused", map[string]any{"to": req["to"], "subject": nil})
		e.bad().postTo(t, e.url, s.key, "/api/v1/send", bad, "Idempotency-Key", key).
			wantError(t, http.StatusBadRequest, "missing_field", "subject")
		e.postTo(t, e.url, s.key, "/api/v1/send", req, "Idempotency-Key", key).sent(t, http.StatusOK).want(t, true, "sent")
		if n := len(e.ses.sendsTo(req["to"].(string))); n != 1 {
			t.Errorf("%d SES sends, want 1", n)
		}
	})
	t.Run("keys are scoped to the workspace", func(t *testing.T) {
		key := uuid.NewString()
		req := msg("idemws", nil)
		mine := e.postTo(t, e.url, s.key, "/api/v1/send", req, "Idempotency-Key", key).sent(t, http.StatusOK)
		theirs := e.postTo(t, e.url, other.key, "/api/v1/send", req, "Idempotency-Key", key).sent(t, http.StatusOK)
		theirs.want(t, true, "sent")
		if theirs.ID == mine.ID {
			t.Error("another workspace's request with the same key replayed this workspace's answer")
		}
		if got := len(e.ses.sendsTo(req["to"].(string))); got != 2 {
			t.Errorf("%d SES sends, want one per workspace", got)
		}
		e.emailData(t, other.key, theirs.ID)
	})
}

// An Idempotency-Key replays for 24 hours; after that the same key sends
// again.
func TestSendIdempotencyExpires(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	clock := dynamotest.NewClock(start)
	e := startDevAt(t, clock)
	s := newSendWS(t, e, defaultSender())
	key := uuid.NewString()
	req := msg("idemttl", nil)
	first := e.post(s.key, "/api/v1/send", req, "Idempotency-Key", key).sent(t, http.StatusOK)

	clock.Set(start.Add(24*time.Hour - time.Second))
	if again := e.post(s.key, "/api/v1/send", req, "Idempotency-Key", key).sent(t, http.StatusOK); again.ID != first.ID {
		t.Errorf("replay within 24 hours = %s, want %s", again.ID, first.ID)
	}
	clock.Set(start.Add(24*time.Hour + time.Second))
	later := e.post(s.key, "/api/v1/send", req, "Idempotency-Key", key).sent(t, http.StatusOK)
	if later.ID == first.ID || later.Status != "sent" {
		t.Errorf("same key after 24 hours = %+v, want a new email sent", later)
	}
	if n := len(e.ses.sendsTo(req["to"].(string))); n != 2 {
		t.Errorf("%d SES sends, want 2 (one per 24-hour window)", n)
	}
}

// A twin is told to retry while the first request runs, for up to 60 s;
// past that (the first request's function is gone) it gets the answer the
// first request recorded with the email.
func TestSendIdempotencyInFlightWindow(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	clock := dynamotest.NewClock(start)
	e := startDevAt(t, clock)
	s := newSendWS(t, e, defaultSender())
	key := uuid.NewString()
	req := msg("idemslow", nil)
	release := make(chan struct{})
	var released sync.Once
	unblock := func() { released.Do(func() { close(release) }) }
	t.Cleanup(unblock) // before the server stops, even if the test fails early
	e.ses.setFail(func(in sending.SendInput) error {
		if in.To == req["to"] {
			<-release // SES is slow for the first request
		}
		return nil
	})
	first := make(chan response, 1)
	go func() {
		r, err := e.do(e.url, s.key, http.MethodPost, "/api/v1/send", req, "Idempotency-Key", key)
		if err != nil {
			t.Error(err)
		}
		first <- r
	}()
	// The claim is written with the email, before SES is called.
	for i := 0; len(e.ses.sendsTo(req["to"].(string))) == 0; i++ {
		if i == 1000 {
			t.Fatal("the first request never reached SES")
		}
		time.Sleep(10 * time.Millisecond)
	}

	clock.Set(start.Add(59 * time.Second))
	e.post(s.key, "/api/v1/send", req, "Idempotency-Key", key).
		wantError(t, http.StatusConflict, "idempotency_in_progress", "Idempotency-Key")
	clock.Set(start.Add(61 * time.Second))
	late := e.post(s.key, "/api/v1/send", req, "Idempotency-Key", key).sent(t, http.StatusOK)
	unblock()
	done := (<-first).sent(t, http.StatusOK)
	if late.ID != done.ID || late.Status != "sent" {
		t.Errorf("twin after 60 s = %+v, want the first request's answer %s", late, done.ID)
	}
	if n := len(e.ses.sendsTo(req["to"].(string))); n != 1 {
		t.Errorf("%d SES sends, want 1", n)
	}
}
