package webhook_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/event"
	"github.com/sesame-mail/sesame/internal/queue/batch"
	"github.com/sesame-mail/sesame/internal/webhook"
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
