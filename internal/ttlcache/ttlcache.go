// Package ttlcache keeps values for a short time in one process: a Lambda
// instance's memory of reads it may repeat for about a second without
// asking the table again (docs/decisions.md, "Per-instance read cache").
package ttlcache

import (
	"sync"
	"time"
)

// Cache holds values by key, each for TTL after it was put. It is safe
// for concurrent use. A nil *Cache, or one with a TTL of zero, holds
// nothing: every Get misses, so a caller reads every time.
type Cache[K comparable, V any] struct {
	ttl time.Duration
	max int
	now func() time.Time

	mu      sync.Mutex
	entries map[K]entry[V]
}

type entry[V any] struct {
	v       V
	expires time.Time
}

// DefaultMax bounds the entries of a cache made with max ≤ 0: enough for
// every workspace an instance serves at once, small enough that a flood of
// distinct keys cannot grow an instance's memory without end.
const DefaultMax = 10000

// New returns a cache keeping each value for ttl, at most max entries
// (DefaultMax if max ≤ 0), on the clock now (time.Now if nil).
func New[K comparable, V any](ttl time.Duration, max int, now func() time.Time) *Cache[K, V] {
	if max <= 0 {
		max = DefaultMax
	}
	if now == nil {
		now = time.Now
	}
	return &Cache[K, V]{ttl: ttl, max: max, now: now, entries: map[K]entry[V]{}}
}

// Get returns the value put under k less than TTL ago.
func (c *Cache[K, V]) Get(k K) (V, bool) {
	var zero V
	if c == nil || c.ttl <= 0 {
		return zero, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[k]
	if !ok {
		return zero, false
	}
	if !c.now().Before(e.expires) {
		delete(c.entries, k)
		return zero, false
	}
	return e.v, true
}

// Put keeps v under k for the cache's TTL. When the cache is full, the
// expired entries go first, then an arbitrary one: a cache forgets, it
// never refuses.
func (c *Cache[K, V]) Put(k K, v V) {
	if c == nil || c.ttl <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if _, ok := c.entries[k]; !ok && len(c.entries) >= c.max {
		for key, e := range c.entries {
			if !now.Before(e.expires) {
				delete(c.entries, key)
			}
		}
		for key := range c.entries {
			if len(c.entries) < c.max {
				break
			}
			delete(c.entries, key)
		}
	}
	c.entries[k] = entry[V]{v: v, expires: now.Add(c.ttl)}
}

// Delete forgets k: the next Get reads again (a write of this instance
// that changed what k holds).
func (c *Cache[K, V]) Delete(k K) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.entries, k)
}

// Len is the number of entries held, expired ones included until they
// are met.
func (c *Cache[K, V]) Len() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}
