package webhook_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/event"
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
