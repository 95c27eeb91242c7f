package vouchers

import (
	"sync"
	"time"
)

// Recent holds what lookups found, by key, and answers each while it is younger than the ttl:
// the bounded cache of the provider's answers (StockCache) and of the sandbox's products. Past
// max values, Put drops the expired ones, then all. Use NewRecent.
type Recent[K comparable, V any] struct {
	ttl time.Duration
	max int
	now func() time.Time

	mu sync.Mutex
	m  map[K]recent[V]
}

type recent[V any] struct {
	v  V
	at time.Time
}

// NewRecent returns a cache of at most max values kept ttl each, by the clock now.
func NewRecent[K comparable, V any](ttl time.Duration, max int, now func() time.Time) *Recent[K, V] {
	return &Recent[K, V]{ttl: ttl, max: max, now: now, m: map[K]recent[V]{}}
}

// Get returns the value of k when it was found less than the ttl ago.
func (c *Recent[K, V]) Get(k K) (V, bool) {
	c.mu.Lock()
	e, ok := c.m[k]
	c.mu.Unlock()
	if !ok || c.now().Sub(e.at) >= c.ttl {
		var zero V
		return zero, false
	}
	return e.v, true
}

// Put keeps v for k as found at at (when the lookup that found it began, or ended).
func (c *Recent[K, V]) Put(k K, v V, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= c.max {
		now := c.now()
		for key, old := range c.m {
			if now.Sub(old.at) >= c.ttl {
				delete(c.m, key)
			}
		}
		if len(c.m) >= c.max {
			clear(c.m)
		}
	}
	c.m[k] = recent[V]{v: v, at: at}
}
