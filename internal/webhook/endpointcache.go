package webhook

import (
	"context"
	"time"

	"github.com/sesame-mail/sesame/internal/ttlcache"
)

// EndpointTTL is how long a warm instance reuses a workspace's endpoint
// list (the fan-out) or an endpoint (the dispatcher): a new, changed,
// disabled or removed endpoint is seen by every instance within it
// (docs/decisions.md, "Per-instance read cache").
const EndpointTTL = time.Second

// EndpointCache is one instance's memory of endpoint reads. Build one per
// instance (NewEndpointCache), in the wiring; it wraps the stores the
// fan-out and the dispatcher read through.
type EndpointCache struct {
	lists *ttlcache.Cache[string, []Endpoint]
	one   *ttlcache.Cache[[2]string, Endpoint]
}

// NewEndpointCache keeps reads for ttl on the clock now (time.Now if nil).
func NewEndpointCache(ttl time.Duration, now func() time.Time) *EndpointCache {
	return &EndpointCache{
		lists: ttlcache.New[string, []Endpoint](ttl, 0, now),
		one:   ttlcache.New[[2]string, Endpoint](ttl, 0, now),
	}
}

// Lister is next read at most once a TTL per workspace.
func (c *EndpointCache) Lister(next EndpointLister) EndpointLister {
	return cachedLister{next: next, c: c}
}

// Store is next with GetEndpoint read at most once a TTL per endpoint. An
// endpoint this instance records a failure, success or disable of is
// forgotten, so its own next job reads what it wrote.
func (c *EndpointCache) Store(next DispatchStore) DispatchStore {
	return cachedStore{DispatchStore: next, c: c}
}

type cachedLister struct {
	next EndpointLister
	c    *EndpointCache
}

func (l cachedLister) ListEndpoints(ctx context.Context, workspaceID string) ([]Endpoint, error) {
	if eps, ok := l.c.lists.Get(workspaceID); ok {
		return eps, nil
	}
	eps, err := l.next.ListEndpoints(ctx, workspaceID)
	if err != nil {
		return nil, err
	}
	l.c.lists.Put(workspaceID, eps)
	return eps, nil
}

type cachedStore struct {
	DispatchStore
	c *EndpointCache
}

func (s cachedStore) GetEndpoint(ctx context.Context, workspaceID, id string) (Endpoint, error) {
	k := [2]string{workspaceID, id}
	if ep, ok := s.c.one.Get(k); ok {
		return ep, nil
	}
	ep, err := s.DispatchStore.GetEndpoint(ctx, workspaceID, id)
	if err != nil {
		return Endpoint{}, err // a removed endpoint is read again: it stays removed
	}
	s.c.one.Put(k, ep)
	return ep, nil
}

func (s cachedStore) EndpointSucceeded(ctx context.Context, workspaceID, id string, at time.Time) error {
	defer s.c.one.Delete([2]string{workspaceID, id})
	return s.DispatchStore.EndpointSucceeded(ctx, workspaceID, id, at)
}

func (s cachedStore) EndpointFailed(ctx context.Context, workspaceID, id string) error {
	defer s.c.one.Delete([2]string{workspaceID, id})
	return s.DispatchStore.EndpointFailed(ctx, workspaceID, id)
}

func (s cachedStore) DisableFailingEndpoint(ctx context.Context, workspaceID, id, reason string, since time.Time) (bool, error) {
	defer s.c.one.Delete([2]string{workspaceID, id})
	return s.DispatchStore.DisableFailingEndpoint(ctx, workspaceID, id, reason, since)
}
