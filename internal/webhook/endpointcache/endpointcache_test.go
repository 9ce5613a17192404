package endpointcache_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sesame-mail/sesame/internal/email"
	"github.com/sesame-mail/sesame/internal/event"
	"github.com/sesame-mail/sesame/internal/webhook"
	"github.com/sesame-mail/sesame/internal/webhook/endpointcache"
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

// lister is an EndpointLister over a list a test replaces, counting its
// reads.
type lister struct {
	endpoints []webhook.Endpoint
	reads     int
}

func (l *lister) ListEndpoints(context.Context, string) ([]webhook.Endpoint, error) {
	l.reads++
	return l.endpoints, nil
}

// jobQueue counts the jobs put on it.
type jobQueue struct{ jobs int }

func (q *jobQueue) EnqueueAll(_ context.Context, bodies [][]byte) error {
	q.jobs += len(bodies)
	return nil
}

// A warm status instance reads a workspace's endpoints once a TTL: a
// disabled endpoint still gets the jobs of that TTL, and none after.
func TestCachedFanoutSeesAChangeWithinTheTTL(t *testing.T) {
	ws := uuid.NewString()
	ep := webhook.Endpoint{ID: uuid.NewString(), WorkspaceID: ws, Enabled: true}
	l := &lister{endpoints: []webhook.Endpoint{ep}}
	clock := &testClock{t: time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)}
	q := &jobQueue{}
	fan := &webhook.Fanout{Endpoints: endpointcache.New(endpointcache.TTL, clock.now).Lister(l), Queue: q}
	jobs := func() int {
		t.Helper()
		before := q.jobs
		e := event.Event{ID: "evt_" + uuid.NewString(), WorkspaceID: ws, Type: event.Delivered, CreatedAt: clock.now(), Data: &email.View{ID: uuid.NewString()}}
		if err := fan.Publish(t.Context(), e); err != nil {
			t.Fatal(err)
		}
		return q.jobs - before
	}
	if n := jobs(); n != 1 {
		t.Fatalf("%d jobs, want 1", n)
	}
	off := ep
	off.Enabled = false
	l.endpoints = []webhook.Endpoint{off} // the owner disables it
	clock.advance(endpointcache.TTL - time.Millisecond)
	if n := jobs(); n != 1 {
		t.Errorf("within the TTL: %d jobs, want 1 (the list read before)", n)
	}
	clock.advance(time.Millisecond)
	if n := jobs(); n != 0 {
		t.Errorf("at the TTL: %d jobs, want none to a disabled endpoint", n)
	}
	if l.reads != 2 {
		t.Errorf("%d list reads, want 2 (one a TTL)", l.reads)
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
	store := endpointcache.New(endpointcache.TTL, clock.now).Store(dispatchStore{
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
	clock.advance(endpointcache.TTL)
	for range 2 {
		if _, err := store.GetEndpoint(ctx, ws, id); err != webhook.ErrEndpointNotFound {
			t.Fatalf("removed endpoint: %v", err)
		}
	}
	if reads != 4 {
		t.Errorf("%d reads, want a removed endpoint read each time (4)", reads)
	}
}
