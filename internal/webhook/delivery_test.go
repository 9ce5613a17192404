package webhook_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/event"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/queue/queuetest"
	"github.com/sesame-mail/sesame/internal/webhook"
	"github.com/sesame-mail/sesame/internal/webhook/post"
)

// verifyIndependently is a receiver's check written from the spec alone,
// not with webhook.Verify: HMAC-SHA256 keyed by the whole whsec_ string
// over "<t>.<raw body>", hex, compared in constant time, any v1 matching,
// t within 300 s.
func verifyIndependently(secret, header string, body []byte, now time.Time) error {
	var ts string
	var v1s []string
	for part := range strings.SplitSeq(header, ",") {
		k, v, _ := strings.Cut(part, "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			v1s = append(v1s, v)
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return errors.New("no timestamp")
	}
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts + "."))
	m.Write(body)
	want := m.Sum(nil)
	matched := false
	for _, v1 := range v1s {
		got, err := hex.DecodeString(v1)
		if err != nil {
			return errors.New("v1 is not hex")
		}
		matched = matched || hmac.Equal(got, want)
	}
	if !matched {
		return errors.New("signature mismatch")
	}
	if age := now.Sub(time.Unix(sec, 0)); age > 300*time.Second || age < -300*time.Second {
		return errors.New("timestamp outside 300 s")
	}
	return nil
}

// pipeline is the whole path on the emulators: fan-out into a webhooks
// queue of the test's own, polled into the dispatcher as Lambda would.
type pipeline struct {
	*fixture
	queues *queuetest.Set
	fanout *webhook.Fanout
	poller *queue.Poller
}

func newPipeline(t *testing.T, schedule []time.Duration) *pipeline {
	t.Helper()
	f := newFixture(t)
	qs := queuetest.New(t, queuetest.Def(queue.Webhooks.Name, queue.Webhooks.MaxReceives))
	url := qs.URL(t, queue.Webhooks.Name)
	poster := post.NewClient(post.Options{Timeout: 5 * time.Second, AllowedPrefixes: testPrefixes})
	d := webhook.NewDispatcher(f.store.Webhooks, poster, &queue.Visibility{SQS: qs.SQS, QueueURL: url}, webhook.DispatcherOptions{
		Schedule: schedule, Jitter: identity, Timeout: 5 * time.Second, Logger: queuetest.Logger(t),
	})
	return &pipeline{
		fixture: f, queues: qs,
		fanout: &webhook.Fanout{Endpoints: f.store.Webhooks, Queue: &queue.BatchPublisher{SQS: qs.SQS, QueueURL: url}},
		poller: qs.Poller(t, queue.Webhooks.Name, queue.NewConsumer(d.Handle)),
	}
}

// drain polls until the queue is empty and done holds.
func (p *pipeline) drain(done func() bool) {
	p.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if done() {
			if visible, inFlight := p.queues.Counts(p.t, queue.Webhooks.Name); visible == 0 && inFlight == 0 {
				return
			}
		}
		if time.Now().After(deadline) {
			p.t.Fatal("gave up waiting for the queue to drain")
		}
		if _, err := p.poller.PollOnce(p.t.Context()); err != nil {
			p.t.Fatal(err)
		}
	}
}

func TestDeliveryIsSignedAndByteExact(t *testing.T) {
	t.Parallel()
	p := newPipeline(t, nil)
	rc := newReceiver(t, "127.0.0.2:0", status(http.StatusNoContent))
	ep := p.endpoint(rc.URL + "/hooks")
	e := testEvent(p.ws, event.Delivered)
	want, err := e.Body()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.fanout.Publish(t.Context(), e); err != nil {
		t.Fatal(err)
	}
	p.drain(func() bool { return len(rc.requests()) == 1 })

	got := rc.requests()[0]
	if !bytes.Equal(got.body, want) {
		t.Errorf("body differs from event.Body():\n got %s\nwant %s", got.body, want)
	}
	sig := got.header.Get("X-Service-Signature")
	if err := verifyIndependently(ep.Secret, sig, got.body, time.Now()); err != nil {
		t.Errorf("independent verifier refuses %q: %v", sig, err)
	}
	if err := webhook.Verify(ep.Secret, sig, got.body, time.Now(), 0); err != nil {
		t.Errorf("webhook.Verify refuses %q: %v", sig, err)
	}
	if err := verifyIndependently(webhook.NewSecret(), sig, got.body, time.Now()); err == nil {
		t.Error("another secret verifies the signature")
	}
	headers := map[string]string{
		"Content-Type":         "application/json",
		"User-Agent":           "Sesame-Webhooks/1 (+https://github.com/sesame-mail/sesame)",
		"X-Service-Event-Id":   e.ID,
		"X-Service-Event-Type": "email.delivered",
	}
	for name, wantValue := range headers {
		if v := got.header.Get(name); v != wantValue {
			t.Errorf("%s = %q, want %q", name, v, wantValue)
		}
	}
	if got.path != "/hooks" {
		t.Errorf("POSTed to %q, want /hooks", got.path)
	}

	if !p.isDelivered(ep.ID, e) {
		t.Error("the event is not found delivered")
	}
	as := p.attempts(ep.ID)
	if len(as) != 1 || as[0].Number != 1 || as[0].StatusCode != 204 || as[0].Error != "" || as[0].EventID != e.ID {
		t.Errorf("attempts = %+v, want one successful attempt 1", as)
	}
	if after := p.get(ep.ID); after.LastSuccessAt == nil || after.ConsecutiveFailures != 0 || !after.Enabled {
		t.Errorf("endpoint after success = %+v", after)
	}
}

func TestDeliveryRetriesUntilTheReceiverRecovers(t *testing.T) {
	t.Parallel()
	p := newPipeline(t, []time.Duration{time.Millisecond, time.Millisecond, time.Millisecond, time.Millisecond, time.Millisecond})
	rc := newReceiver(t, "127.0.0.2:0", func(w http.ResponseWriter, _ *http.Request, n int) {
		if n <= 3 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
	ep := p.endpoint(rc.URL)
	e := testEvent(p.ws, event.Bounced)
	if err := p.fanout.Publish(t.Context(), e); err != nil {
		t.Fatal(err)
	}
	p.drain(func() bool { return p.isDelivered(ep.ID, e) })

	reqs := rc.requests()
	if len(reqs) != 4 {
		t.Fatalf("receiver got %d requests, want 3 failures and 1 success", len(reqs))
	}
	want, _ := e.Body()
	for i, r := range reqs {
		if id := r.header.Get("X-Service-Event-Id"); id != e.ID {
			t.Errorf("request %d event id = %q, want %q", i+1, id, e.ID)
		}
		if !bytes.Equal(r.body, want) {
			t.Errorf("request %d body differs", i+1)
		}
		if err := verifyIndependently(ep.Secret, r.header.Get("X-Service-Signature"), r.body, time.Now()); err != nil {
			t.Errorf("request %d: %v", i+1, err)
		}
	}
	as := p.attempts(ep.ID)
	var got []string
	for _, a := range as {
		got = append(got, strconv.Itoa(a.Number)+":"+strconv.Itoa(a.StatusCode)+":"+a.EventID)
	}
	wantLog := []string{"4:200:" + e.ID, "3:503:" + e.ID, "2:503:" + e.ID, "1:503:" + e.ID}
	if strings.Join(got, " ") != strings.Join(wantLog, " ") {
		t.Errorf("attempt log (newest first) = %v, want %v", got, wantLog)
	}
	if after := p.get(ep.ID); !after.Enabled || after.ConsecutiveFailures != 0 || after.LastSuccessAt == nil {
		t.Errorf("endpoint after recovery = %+v", after)
	}
}

func TestDeliveryGivesUpAndDisablesTheEndpoint(t *testing.T) {
	t.Parallel()
	p := newPipeline(t, []time.Duration{time.Millisecond, time.Millisecond})
	rc := newReceiver(t, "127.0.0.2:0", status(http.StatusInternalServerError))
	ep := p.endpoint(rc.URL)
	e := testEvent(p.ws, event.Failed)
	if err := p.fanout.Publish(t.Context(), e); err != nil {
		t.Fatal(err)
	}
	p.drain(func() bool { return !p.get(ep.ID).Enabled })

	if n := len(rc.requests()); n != 3 {
		t.Errorf("receiver got %d requests, want 3 (a schedule of 2 delays)", n)
	}
	after := p.get(ep.ID)
	if after.Enabled || after.DisabledReason != webhook.AutoDisableReason || after.ConsecutiveFailures != 3 {
		t.Errorf("endpoint = %+v, want disabled (%q) after 3 failures", after, webhook.AutoDisableReason)
	}
	if as := p.attempts(ep.ID); len(as) != 3 || as[0].Number != 3 || as[0].Error != "HTTP 500" {
		t.Errorf("attempts = %+v", as)
	}

	// Later events are not even enqueued for the disabled endpoint.
	if err := p.fanout.Publish(t.Context(), testEvent(p.ws, event.Failed)); err != nil {
		t.Fatal(err)
	}
	if visible, inFlight := p.queues.Counts(t, queue.Webhooks.Name); visible+inFlight != 0 {
		t.Errorf("a job was enqueued for a disabled endpoint (%d visible, %d in flight)", visible, inFlight)
	}
}
