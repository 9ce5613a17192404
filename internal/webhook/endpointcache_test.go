package webhook_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/event"
	"github.com/sesame-mail/sesame/internal/queue"
	"github.com/sesame-mail/sesame/internal/webhook"
)

// testClock is a clock tests move by hand.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// A warm status instance reads a workspace's endpoints once a TTL: a
// disabled endpoint still gets the jobs of that TTL, and none after.
func TestCachedFanoutSeesAChangeWithinTheTTL(t *testing.T) {
	ws := uuid.NewString()
	ep := webhook.Endpoint{ID: uuid.NewString(), WorkspaceID: ws, Enabled: true}
	lister := &countingLister{fakeLister: fakeLister{ep}, reads: map[string]int{}}
	clock := &testClock{t: time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)}
	sender := &fakeBatch{}
	fan := &webhook.Fanout{
		Endpoints: webhook.NewEndpointCache(webhook.EndpointTTL, clock.now).Lister(lister),
		Queue:     &queue.BatchPublisher{SQS: sender, QueueURL: "q"},
	}
	jobs := func() int {
		t.Helper()
		before := 0
		for _, c := range sender.calls {
			before += len(c)
		}
		if err := fan.Publish(t.Context(), testEvent(ws, event.Delivered)); err != nil {
			t.Fatal(err)
		}
		after := 0
		for _, c := range sender.calls {
			after += len(c)
		}
		return after - before
	}
	if n := jobs(); n != 1 {
		t.Fatalf("%d jobs, want 1", n)
	}
	off := ep
	off.Enabled = false
	lister.fakeLister = fakeLister{off} // the owner disables it
	clock.advance(webhook.EndpointTTL - time.Millisecond)
	if n := jobs(); n != 1 {
		t.Errorf("within the TTL: %d jobs, want 1 (the list read before)", n)
	}
	clock.advance(time.Millisecond)
	if n := jobs(); n != 0 {
		t.Errorf("at the TTL: %d jobs, want none to a disabled endpoint", n)
	}
	if lister.reads[ws] != 2 {
		t.Errorf("%d list reads, want 2 (one a TTL)", lister.reads[ws])
	}
}

// dispatchStore is a DispatchStore whose endpoint reads and failure counts
// are function fields; its other methods are not called here.
type dispatchStore struct {
	webhook.DispatchStore
	get    func(ws, id string) (webhook.Endpoint, error)
	failed func(ws, id string) error
}

func (s dispatchStore) GetEndpoint(_ context.Context, ws, id string) (webhook.Endpoint, error) {
	return s.get(ws, id)
}
func (s dispatchStore) EndpointFailed(_ context.Context, ws, id string) error {
	return s.failed(ws, id)
}

// A warm dispatcher reads an endpoint once a TTL, reads again after it
// recorded a failure of it (so its next success resets the count), and
// never remembers a removed endpoint.
func TestCachedDispatchStore(t *testing.T) {
	ws, id := uuid.NewString(), uuid.NewString()
	clock := &testClock{t: time.Unix(0, 0)}
	reads, failures := 0, 0
	present := true
	store := webhook.NewEndpointCache(webhook.EndpointTTL, clock.now).Store(dispatchStore{
		get: func(string, string) (webhook.Endpoint, error) {
			reads++
			if !present {
				return webhook.Endpoint{}, webhook.ErrEndpointNotFound
			}
			return webhook.Endpoint{ID: id, WorkspaceID: ws, Enabled: true, ConsecutiveFailures: failures}, nil
		},
		failed: func(string, string) error { failures++; return nil },
	})
	ctx := t.Context()
	get := func() webhook.Endpoint {
		t.Helper()
		ep, err := store.GetEndpoint(ctx, ws, id)
		if err != nil {
			t.Fatal(err)
		}
		return ep
	}
	get()
	get()
	if reads != 1 {
		t.Errorf("%d reads within the TTL, want 1", reads)
	}
	if err := store.EndpointFailed(ctx, ws, id); err != nil {
		t.Fatal(err)
	}
	if ep := get(); reads != 2 || ep.ConsecutiveFailures != 1 {
		t.Errorf("after its own failure: %d reads, failures %d; want the count it wrote", reads, ep.ConsecutiveFailures)
	}
	present = false
	clock.advance(webhook.EndpointTTL)
	for range 2 {
		if _, err := store.GetEndpoint(ctx, ws, id); err != webhook.ErrEndpointNotFound {
			t.Fatalf("removed endpoint: %v", err)
		}
	}
	if reads != 4 {
		t.Errorf("%d reads, want a removed endpoint read each time (4)", reads)
	}
}
