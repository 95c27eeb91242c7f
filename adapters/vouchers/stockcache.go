package vouchers

import (
	"context"
	"slices"
	"time"

	"golang.org/x/sync/singleflight"

	core "github.com/rewardsco/rewards/core/vouchers"
)

// DefaultStockTTL is how long a stock answer is kept unless NewStockCache says otherwise.
const DefaultStockTTL = 60 * time.Second

// StockCache is a provider whose Stock answers are kept per product for a while, and whose
// concurrent Stock calls for one product share one call: the reads of the store and the
// partner API (a fetch, a stock check) cannot spend the provider's rate limit, whoever holds a
// key. Orders, and the stock check a purchase makes before it, go to the provider itself.
type StockCache struct {
	core.Provider
	group   singleflight.Group
	entries *Recent[string, []core.Stock]
}

// maxStockEntries bounds the cache; past it, expired entries are dropped, then everything.
const maxStockEntries = 100_000

// NewStockCache wraps p; ttl ≤ 0 means DefaultStockTTL.
func NewStockCache(p core.Provider, ttl time.Duration) *StockCache {
	if ttl <= 0 {
		ttl = DefaultStockTTL
	}
	return &StockCache{Provider: p, entries: NewRecent[string, []core.Stock](ttl, maxStockEntries, time.Now)}
}

// Stock implements core.Provider from the cache when its answer is younger than the ttl.
// Errors are not kept.
func (c *StockCache) Stock(ctx context.Context, productID string) ([]core.Stock, error) {
	if levels, ok := c.entries.Get(productID); ok {
		return slices.Clone(levels), nil
	}
	v, err, _ := c.group.Do(productID, func() (any, error) {
		levels, err := c.Provider.Stock(context.WithoutCancel(ctx), productID)
		if err != nil {
			return nil, err
		}
		c.entries.Put(productID, levels, time.Now())
		return levels, nil
	})
	if err != nil {
		return nil, err
	}
	return slices.Clone(v.([]core.Stock)), nil
}
