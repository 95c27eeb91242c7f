package catalogue

import (
	"context"
	"sync"
	"time"

	"github.com/google/uuid"
)

// PoolStockTTL is how long a pool's count of free codes is served from memory: the longest a
// purchase or new codes committed by another instance take to show in this instance's lists and
// fetches. The purchase itself always counts in its transaction, so a stale count never sells
// a code that is gone.
const PoolStockTTL = 500 * time.Millisecond

// PoolStock keeps the free codes of pool rewards (IsPool) in memory for PoolStockTTL, so that a
// page of the store costs no round trip for its pools' stock. What this instance changes (new
// codes, a purchase) is served at once: Changed forgets the pool's count, and a count read
// while a change was being made is not kept.
type PoolStock struct {
	now func() time.Time

	mu   sync.Mutex
	gen  uint64 // moves with every Changed
	free map[uuid.UUID]poolCount
	// swept is when stale counts were last forgotten (at most once per PoolStockTTL).
	swept time.Time
}

type poolCount struct {
	n  int64
	at time.Time
}

// NewPoolStock returns an empty cache of pool stock; now is the clock (nil: time.Now).
func NewPoolStock(now func() time.Time) *PoolStock {
	if now == nil {
		now = time.Now
	}
	return &PoolStock{now: now, free: map[uuid.UUID]poolCount{}}
}

// Changed forgets the count of a pool whose codes changed on this instance (call it once the
// change is committed), and drops the counts of every read in flight.
func (p *PoolStock) Changed(rewardID uuid.UUID) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.gen++
	delete(p.free, rewardID)
}

// Of returns the free codes of the pools among ids: the fresh counts from memory, the others
// read in one call of read (which, like Repo.FreeCodesOf, leaves out the ids that are no pool).
func (p *PoolStock) Of(ctx context.Context, ids []uuid.UUID, read func(context.Context, []uuid.UUID) (map[uuid.UUID]int64, error)) (map[uuid.UUID]int64, error) {
	out := make(map[uuid.UUID]int64, len(ids))
	var missing []uuid.UUID
	p.mu.Lock()
	now := p.now()
	for _, id := range ids {
		if c, ok := p.free[id]; ok && now.Sub(c.at) < PoolStockTTL {
			out[id] = c.n
		} else {
			missing = append(missing, id)
		}
	}
	gen := p.gen
	p.mu.Unlock()
	if len(missing) == 0 {
		return out, nil
	}
	read1, err := read(ctx, missing)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	keep := p.gen == gen
	if now.Sub(p.swept) >= PoolStockTTL {
		p.sweep(now)
	}
	for id, n := range read1 {
		out[id] = n
		if keep {
			p.free[id] = poolCount{n: n, at: now}
		}
	}
	return out, nil
}

// sweep forgets the counts that are no longer fresh, so the cache holds only the pools that
// are being read.
func (p *PoolStock) sweep(now time.Time) {
	p.swept = now
	for id, c := range p.free {
		if now.Sub(c.at) >= PoolStockTTL {
			delete(p.free, id)
		}
	}
}

// FreeCounter counts the free codes of the pool rewards among ids in one call, leaving out the
// ids that are no pool: Repo.FreeCodesOf, or Service.FreeCodesOf with PoolStock in front of it.
type FreeCounter func(ctx context.Context, ids []uuid.UUID) (map[uuid.UUID]int64, error)

// CountFree returns the free codes of the pool rewards (IsPool) among the n rewards that reward
// gives, counted in one call of count; nil when none is a pool. Lists, searches and touchpoint
// trees all count through it, so which rewards carry a count is decided here alone.
func CountFree(ctx context.Context, n int, reward func(i int) *Reward, count FreeCounter) (map[uuid.UUID]int64, error) {
	var pools []uuid.UUID
	for i := range n {
		if r := reward(i); r.IsPool() {
			pools = append(pools, r.ID)
		}
	}
	if len(pools) == 0 {
		return nil, nil
	}
	return count(ctx, pools)
}

// FillFree sets Free on the pool rewards of list that count answers for (CountFree).
func FillFree(ctx context.Context, list []Listed, count FreeCounter) error {
	free, err := CountFree(ctx, len(list), func(i int) *Reward { return &list[i].Reward }, count)
	if err != nil {
		return err
	}
	for i := range list {
		if n, ok := free[list[i].Reward.ID]; ok {
			list[i].Free = &n
		}
	}
	return nil
}
