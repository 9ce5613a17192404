package webhook_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/event"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/queue/batch"
	"github.com/sesame-mail/sesame/internal/queue/queuetest"
	"github.com/sesame-mail/sesame/internal/webhook"
	"github.com/sesame-mail/sesame/internal/webhook/post"
)

// A successful delivery of a healthy endpoint writes one item, its
// attempt, which is also the record a duplicate job finds; a first job
// reads only the endpoint.
func TestDeliveryWritesOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	rc := newReceiver(t, "127.0.0.2:0", status(http.StatusOK))
	ep := f.endpoint(rc.URL)
	if err := f.store.Webhooks.EndpointSucceeded(t.Context(), f.ws, ep.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	e := testEvent(f.ws, event.Delivered)
	d := dispatcher(t, f, &fakeSQS{}, webhook.DispatcherOptions{}, testPrefixes...)
	f.rec.Reset()
	if failed := handle(t, d, message(t, job(t, ep, e), 1, time.Now())); len(failed) != 0 {
		t.Fatalf("failed: %v", failed)
	}
	if n := f.rec.Writes(); n != 1 {
		t.Errorf("%d items written, want 1 (the attempt)", n)
	}
	if reads := f.rec.Calls("GetItem") + f.rec.Calls("Query"); reads != 1 {
		t.Errorf("%d reads, want 1 (the endpoint)", reads)
	}
	if !f.isDelivered(ep.ID, e) {
		t.Error("the event is not found delivered")
	}

	// The same event published again is found delivered and not POSTed.
	again := job(t, ep, e)
	again.Again = true
	if failed := handle(t, d, message(t, again, 1, time.Now())); len(failed) != 0 {
		t.Fatalf("failed: %v", failed)
	}
	if n := len(rc.requests()); n != 1 {
		t.Errorf("receiver got %d requests, want 1", n)
	}
}

// A batch's jobs of one endpoint read it once: the endpoint's item is
// read per batch, not per event, so its partition does not limit how
// many events a workspace's endpoint takes.
func TestBatchReadsEachEndpointOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	rc := newReceiver(t, "127.0.0.2:0", status(http.StatusOK))
	ep := f.endpoint(rc.URL)
	d := dispatcher(t, f, &fakeSQS{}, webhook.DispatcherOptions{}, testPrefixes...)
	var events []event.Event
	var msgs []batch.Message
	for _, typ := range []event.Type{event.Delivered, event.Opened, event.Clicked} {
		e := testEvent(f.ws, typ)
		events = append(events, e)
		msgs = append(msgs, message(t, job(t, ep, e), 1, time.Now()))
	}
	f.rec.Reset()
	if failed := handle(t, d, msgs...); len(failed) != 0 {
		t.Fatalf("failed: %v", failed)
	}
	if reads := f.rec.Calls("GetItem") + f.rec.Calls("Query"); reads != 1 {
		t.Errorf("%d reads for a batch of 3 jobs, want 1 (the endpoint, once)", reads)
	}
	if n := len(rc.requests()); n != 3 {
		t.Errorf("receiver got %d requests, want 3", n)
	}
	for _, e := range events {
		if !f.isDelivered(ep.ID, e) {
			t.Errorf("%s is not found delivered", e.Type)
		}
	}
}

// A batch's attempts of one endpoint are one item: a batch of 10 jobs of
// 10 emails writes one item of one write unit, and each event is then
// found delivered and listed.
func TestBatchRecordsItsAttemptsInOneItem(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	rc := newReceiver(t, "127.0.0.2:0", status(http.StatusOK))
	ep := f.endpoint(rc.URL)
	if err := f.store.Webhooks.EndpointSucceeded(t.Context(), f.ws, ep.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	d := dispatcher(t, f, &fakeSQS{}, webhook.DispatcherOptions{}, testPrefixes...)
	var events []event.Event
	var msgs []batch.Message
	for i := range 10 {
		e := testEvent(f.ws, event.Types[i%len(event.Types)])
		e.ID = "evt_" + strings.ReplaceAll(uuid.NewString(), "-", "") // the status pipeline's form
		events = append(events, e)
		msgs = append(msgs, message(t, job(t, ep, e), 1, time.Now()))
	}
	f.rec.Reset()
	if failed := handle(t, d, msgs...); len(failed) != 0 {
		t.Fatalf("failed: %v", failed)
	}
	if _, wru := f.rec.Units(); f.rec.Writes() != 1 || wru != 1 {
		t.Errorf("a batch of 10 wrote %d items, %.1f WRU; want 1 item, 1 WRU", f.rec.Writes(), wru)
	}
	if n := len(rc.requests()); n != 10 {
		t.Errorf("receiver got %d requests, want 10", n)
	}
	for _, e := range events {
		if !f.isDelivered(ep.ID, e) {
			t.Errorf("%s %s is not found delivered", e.Type, e.ID)
		}
	}
	if n := len(f.attempts(ep.ID)); n != 10 {
		t.Errorf("%d attempts listed, want 10", n)
	}
}

// unrecorded is the store with the attempt log's write failing.
type unrecorded struct{ webhook.DispatchStore }

func (unrecorded) RecordAttempts(context.Context, []webhook.Attempt) error {
	return errors.New("attempt log unavailable")
}

// A batch whose attempts cannot be recorded is not POSTed again: the
// delivered job leaves the queue, the failed one is retried on its
// schedule as it would be anyway.
func TestUnrecordedBatchIsNotRepeated(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ok := newReceiver(t, "127.0.0.2:0", status(http.StatusOK))
	down := newReceiver(t, "127.0.0.2:0", status(http.StatusServiceUnavailable))
	okEP, downEP := f.endpoint(ok.URL), f.endpoint(down.URL)
	sqsAPI := &fakeSQS{}
	poster := post.NewClient(post.Options{Timeout: 5 * time.Second, AllowedPrefixes: testPrefixes})
	later := &queue.Visibility{SQS: sqsAPI, QueueURL: "https://sqs.test/000000000000/webhooks"}
	d := webhook.NewDispatcher(unrecorded{f.store.Webhooks}, poster, later,
		webhook.DispatcherOptions{Schedule: testSchedule, Jitter: identity, Logger: queuetest.Logger(t)})
	delivered := message(t, job(t, okEP, testEvent(f.ws, event.Delivered)), 1, time.Now())
	refused := message(t, job(t, downEP, testEvent(f.ws, event.Delivered)), 1, time.Now())
	failed := handle(t, d, delivered, refused)
	if !slices.Equal(failed, []string{refused.ID}) {
		t.Errorf("retried %v, want only the refused job %s", failed, refused.ID)
	}
	if len(ok.requests()) != 1 || len(down.requests()) != 1 || len(sqsAPI.visibility()) != 1 {
		t.Errorf("POSTs %d and %d, %d retry delays; want 1, 1, 1", len(ok.requests()), len(down.requests()), len(sqsAPI.visibility()))
	}
	if n := len(f.attempts(okEP.ID)) + len(f.attempts(downEP.ID)); n != 0 {
		t.Errorf("%d attempts recorded through a failing log", n)
	}
}
