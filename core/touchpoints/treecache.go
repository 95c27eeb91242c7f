package touchpoints

import (
	"sync"
	"time"

	"github.com/google/uuid"
	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/rewardsco/rewards/core/authcache"
)

// treeCache is the service's one cache of stored trees, by how they are read (game and name, or
// game and id), each with when it was read. It serves two kinds of read:
//
//   - A read without a player (with Config.CoinValues) takes a tree read less than
//     authcache.TTL ago as it is, with no round trip: a change made through this instance is
//     served at its next read, on other instances within authcache.TTL.
//   - Every other read still asks the storage, but hands it the cached tree (Repo.TreeWithCoin,
//     Repo.TreesByID's known): when the stored tree is still that version, the storage answers
//     with it and spares reading and decoding its nodes, the larger part of a read's cost. Such
//     a read is never stale.
//
// A tree not found is not kept, so a new tree is served at once everywhere. The trees are
// shared: serving never changes stored nodes.
type treeCache struct {
	trees *lru.Cache[cachedTreeKey, cachedTree]
	mu    sync.Mutex
	// gen counts the drops: a read in flight when a change dropped its game's trees does not
	// put back what it read (authcache's rule).
	gen uint64
}

// cachedTreeKey is how a tree is read: by the game and its name, or by the game and its id.
type cachedTreeKey struct {
	game uuid.UUID
	name string
	id   uuid.UUID
}

func treeKeyOf(gameID uuid.UUID, key TreeKey) cachedTreeKey {
	if key.ID != uuid.Nil {
		return cachedTreeKey{game: gameID, id: key.ID}
	}
	return cachedTreeKey{game: gameID, name: key.Name}
}

type cachedTree struct {
	tree   Tree
	readAt time.Time
}

// maxCachedTrees bounds the cache (least recently used out first).
const maxCachedTrees = 1000

func newTreeCache() *treeCache {
	trees, err := lru.New[cachedTreeKey, cachedTree](maxCachedTrees)
	if err != nil {
		panic(err) // only for a size below 1
	}
	return &treeCache{trees: trees}
}

// read is a read of the storage begun: when, and the drops counted then.
type read struct {
	at  time.Time
	gen uint64
}

// begin is called before a read of the storage, and its answer given to put with the result.
func (c *treeCache) begin() read {
	c.mu.Lock()
	defer c.mu.Unlock()
	return read{at: time.Now(), gen: c.gen}
}

// get returns the cached tree of k, and whether it was read less than authcache.TTL ago.
func (c *treeCache) get(k cachedTreeKey) (t Tree, fresh, ok bool) {
	e, ok := c.trees.Get(k)
	if !ok {
		return Tree{}, false, false
	}
	return e.tree, time.Since(e.readAt) < authcache.TTL, true
}

// known is the cached tree of k for the storage to compare with, nil when there is none.
func (c *treeCache) known(k cachedTreeKey) *Tree {
	if e, ok := c.trees.Peek(k); ok {
		return &e.tree
	}
	return nil
}

// put keeps t, read by r, unless a drop came since r began.
func (c *treeCache) put(k cachedTreeKey, t Tree, r read) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen == r.gen {
		c.trees.Add(k, cachedTree{tree: t, readAt: r.at})
	}
}

// forget drops k: the storage has no such tree.
func (c *treeCache) forget(k cachedTreeKey) { c.trees.Remove(k) }

// drop forgets the game's trees and every read in flight.
func (c *treeCache) drop(gameID uuid.UUID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	for _, k := range c.trees.Keys() {
		if k.game == gameID {
			c.trees.Remove(k)
		}
	}
}
