package ttlcache

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// clock is a fake clock tests move by hand.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func TestCacheExpiresAfterTTL(t *testing.T) {
	clk := &clock{t: time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)}
	c := New[string, int](time.Second, 0, clk.now)
	if _, ok := c.Get("a"); ok {
		t.Fatal("empty cache hit")
	}
	c.Put("a", 1)
	clk.advance(999 * time.Millisecond)
	if v, ok := c.Get("a"); !ok || v != 1 {
		t.Fatalf("Get before the TTL = %d, %v; want 1, true", v, ok)
	}
	clk.advance(time.Millisecond)
	if _, ok := c.Get("a"); ok {
		t.Fatal("hit at the TTL: a value must be read again once it is a TTL old")
	}
	c.Put("a", 2)
	c.Delete("a")
	if _, ok := c.Get("a"); ok {
		t.Fatal("hit after Delete")
	}
}

func TestCacheWithoutTTLHoldsNothing(t *testing.T) {
	for name, c := range map[string]*Cache[string, int]{
		"nil":      nil,
		"zero TTL": New[string, int](0, 0, nil),
	} {
		t.Run(name, func(t *testing.T) {
			c.Put("a", 1)
			if _, ok := c.Get("a"); ok {
				t.Error("a cache without a TTL answered from memory")
			}
			c.Delete("a")
			if c.Len() != 0 {
				t.Errorf("Len = %d, want 0", c.Len())
			}
		})
	}
}

func TestCacheStaysWithinItsSize(t *testing.T) {
	clk := &clock{t: time.Unix(0, 0)}
	c := New[int, int](time.Minute, 3, clk.now)
	for i := range 3 {
		c.Put(i, i)
	}
	clk.advance(2 * time.Minute) // all three expired
	c.Put(10, 10)
	if c.Len() != 1 {
		t.Errorf("Len = %d after a put into a full cache of expired entries, want 1", c.Len())
	}
	for i := range 10 {
		c.Put(20+i, i)
	}
	if c.Len() != 3 {
		t.Errorf("Len = %d, want the bound 3", c.Len())
	}
	if v, ok := c.Get(29); !ok || v != 9 {
		t.Errorf("the last value put = %d, %v; want 9, true", v, ok)
	}
}

func TestCacheConcurrentUse(t *testing.T) {
	clk := &clock{t: time.Unix(0, 0)}
	c := New[string, int](time.Second, 50, clk.now)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 1000 {
				k := fmt.Sprint(i % 100)
				c.Put(k, g)
				c.Get(k)
				if i%97 == 0 {
					c.Delete(k)
					clk.advance(time.Millisecond)
				}
			}
		})
	}
	wg.Wait()
	if c.Len() > 50 {
		t.Errorf("Len = %d, over the bound 50", c.Len())
	}
}
