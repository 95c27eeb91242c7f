// Package authcache keeps what authentication looked up (an API key, a server secret, a
// player, a partner token) in memory for a short time, so that an authenticated request costs
// no database round trip while its lookup is fresh. Revocation is the caller's: whatever
// revokes (a key rotation, a blocked player, a rotated secret) drops the lookups it affects on
// this instance at once; other instances see it once their lookups expire (TTL).
//
// A lookup that was in flight when a revocation dropped its entries must not put the revoked
// value back: Put takes the generation read before the lookup, and stores nothing when a Drop
// came in between.
//
// Every cache of the service, this package's and the others, is listed with what drops it in
// the documentation of package app.
package authcache

import (
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/expirable"
)

// TTL is how long a lookup is kept: the longest another instance may go on accepting what one
// instance revoked.
const TTL = time.Second

// Cache is a bounded cache of lookups (least recently used first out), each kept for TTL.
type Cache[K comparable, V any] struct {
	lru *expirable.LRU[K, V]
	mu  sync.Mutex
	gen uint64
}

// New returns a cache of at most size lookups.
func New[K comparable, V any](size int) *Cache[K, V] {
	return &Cache[K, V]{lru: expirable.NewLRU[K, V](size, nil, TTL)}
}

// Generation is read before a lookup, and given to Put with its result.
func (c *Cache[K, V]) Generation() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

// Get returns a fresh lookup.
func (c *Cache[K, V]) Get(k K) (V, bool) { return c.lru.Get(k) }

// Put keeps a lookup made since gen was read, unless a Drop came in between.
func (c *Cache[K, V]) Put(k K, v V, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen == gen {
		c.lru.Add(k, v)
	}
}

// Drop forgets every lookup for which match is true, and every lookup in flight.
func (c *Cache[K, V]) Drop(match func(K, V) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	for _, k := range c.lru.Keys() {
		if v, ok := c.lru.Peek(k); ok && match(k, v) {
			c.lru.Remove(k)
		}
	}
}
