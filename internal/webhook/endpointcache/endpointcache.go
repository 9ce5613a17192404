// Package endpointcache keeps, per Lambda instance, the webhook endpoints
// the fan-out and the dispatcher read, for a second (docs/decisions.md,
// "Per-instance read cache").
package endpointcache

import (
	"context"
	"time"

	"github.com/sesame-mail/sesame/internal/ttlcache"
	"github.com/sesame-mail/sesame/internal/webhook"
)

// TTL is how long a warm instance reuses a workspace's endpoint
// list (the fan-out) or an endpoint (the dispatcher): a new, changed,
// disabled or removed endpoint is seen by every instance within it
// (docs/decisions.md, "Per-instance read cache").
const TTL = time.Second

// Cache is one instance's memory of endpoint reads. Build one per
// instance (New), in the wiring; it wraps the stores the
// fan-out and the dispatcher read through.
type Cache struct {
	lists *ttlcache.Cache[string, []webhook.Endpoint]
	one   *ttlcache.Cache[[2]string, webhook.Endpoint]
}

// New keeps reads for ttl on the clock now (time.Now if nil).
func New(ttl time.Duration, now func() time.Time) *Cache {
	return &Cache{
		lists: ttlcache.New[string, []webhook.Endpoint](ttl, 0, now),
		one:   ttlcache.New[[2]string, webhook.Endpoint](ttl, 0, now),
	}
}

// Lister is next read at most once a TTL per workspace.
func (c *Cache) Lister(next webhook.EndpointLister) webhook.EndpointLister {
	return cachedLister{next: next, c: c}
}

// Store is next with GetEndpoint read at most once a TTL per endpoint. An
// endpoint this instance records a failure, success or disable of is
// forgotten, so its own next job reads what it wrote.
func (c *Cache) Store(next webhook.DispatchStore) webhook.DispatchStore {
	return cachedStore{DispatchStore: next, c: c}
}

type cachedLister struct {
	next webhook.EndpointLister
	c    *Cache
}

func (l cachedLister) ListEndpoints(ctx context.Context, workspaceID string) ([]webhook.Endpoint, error) {
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
	webhook.DispatchStore
	c *Cache
}

func (s cachedStore) GetEndpoint(ctx context.Context, workspaceID, id string) (webhook.Endpoint, error) {
	k := [2]string{workspaceID, id}
	if ep, ok := s.c.one.Get(k); ok {
		return ep, nil
	}
	ep, err := s.DispatchStore.GetEndpoint(ctx, workspaceID, id)
	if err != nil {
		return webhook.Endpoint{}, err // a removed endpoint is read again: it stays removed
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
