package studio

import (
	"time"

	"github.com/google/uuid"
	"github.com/hashicorp/golang-lru/v2/expirable"
)

// AuthCacheTTL is how long a found API key or server secret is kept in memory: an authenticated
// request costs no database round trip while its lookup is fresh. A rotation or a change of the
// game's settings made on this instance drops the game's lookups at once; other instances see it
// within AuthCacheTTL.
const AuthCacheTTL = time.Second

// maxCachedLookups bounds each cache (least recently used first out).
const maxCachedLookups = 50_000

// authCache keeps lookups by the SHA-256 of what was looked up, for AuthCacheTTL.
type authCache[V any] struct {
	lru    *expirable.LRU[string, V]
	gameOf func(V) uuid.UUID
}

func newAuthCache[V any](gameOf func(V) uuid.UUID) *authCache[V] {
	return &authCache[V]{lru: expirable.NewLRU[string, V](maxCachedLookups, nil, AuthCacheTTL), gameOf: gameOf}
}

func (c *authCache[V]) get(hash []byte) (V, bool) { return c.lru.Get(string(hash)) }

func (c *authCache[V]) put(hash []byte, v V) { c.lru.Add(string(hash), v) }

// dropGame forgets every lookup of a game.
func (c *authCache[V]) dropGame(gameID uuid.UUID) {
	for _, k := range c.lru.Keys() {
		if v, ok := c.lru.Peek(k); ok && c.gameOf(v) == gameID {
			c.lru.Remove(k)
		}
	}
}
