package catalogueapi

import (
	"encoding/json"
	"reflect"
	"sync"

	"github.com/google/uuid"
)

// listItems holds the JSON of the store list's items. Encoding a page of 20 items (tens of kB of
// texts, HTML-escaped) was a third of the CPU the service spent on GET /rewards; the items of the
// first pages of each order are asked for again and again and rarely change.
//
// It is exact whatever changes, by construction: an entry is the item's shape (RewardShapeA or
// RewardShapeB, everything its JSON is made of: localised texts, prices in the coin, the
// available quantity, dates, assets) with the bytes json.Marshal gave for it, and it is served
// only for a shape reflect.DeepEqual to the one it was made from. The shape is built for every
// request from the read model's snapshot, the coin's value and the pool stock, as before, so a
// new snapshot, a price override, a changed coin value or a sold code makes a different shape,
// and the item is encoded again. Nothing is keyed by version or expires: a stale entry can only
// miss. (The maps, slices and pointers of a shape, its assets, brand categories and end date,
// are the snapshot's own, and DeepEqual takes one as equal to itself without looking into it:
// exact because a snapshot is never changed once built, which its lock-free readers need anyway.) The key (reward, coin, language, shape B) only spreads the entries, so that two
// languages or coins of one reward do not evict each other.
var listItems = newItemCache(4 << 20)

// itemKey is where an item's entry is kept.
type itemKey struct {
	reward, coin uuid.UUID
	lang         string
	b            bool
}

type itemEntry struct {
	shape any
	json  []byte
}

// itemCache is a map of entries up to about limit bytes of JSON (keys counted): when an entry
// would pass it, every entry is dropped and the map fills again from the items asked for.
type itemCache struct {
	mu      sync.RWMutex
	entries map[itemKey]itemEntry
	size    int
	limit   int
}

func newItemCache(limit int) *itemCache {
	return &itemCache{entries: map[itemKey]itemEntry{}, limit: limit}
}

// encoded returns json.Marshal(shape), from the entry of key when it was made from an equal shape.
func (c *itemCache) encoded(key itemKey, shape any) []byte {
	c.mu.RLock()
	e, ok := c.entries[key]
	c.mu.RUnlock()
	if ok && reflect.DeepEqual(e.shape, shape) {
		return e.json
	}
	b, err := json.Marshal(shape)
	if err != nil {
		return nil // the page's encoder writes it, and meets the error itself
	}
	cost := len(b) + len(key.lang)
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.entries[key]; ok {
		c.size -= len(old.json) + len(key.lang)
	}
	if c.size+cost > c.limit {
		clear(c.entries)
		c.size = 0
	}
	c.entries[key] = itemEntry{shape: shape, json: b}
	c.size += cost
	return b
}
