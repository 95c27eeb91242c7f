package catalogue_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/catalogue"
)

// pools is a storage of pool counts that records what each read asked for.
type pools struct {
	mu    sync.Mutex
	free  map[uuid.UUID]int64
	reads [][]uuid.UUID
	// during, when set, runs inside the next read, after the counts are taken.
	during func()
}

func (p *pools) read(_ context.Context, ids []uuid.UUID) (map[uuid.UUID]int64, error) {
	p.mu.Lock()
	p.reads = append(p.reads, ids)
	out := map[uuid.UUID]int64{}
	for _, id := range ids {
		if n, ok := p.free[id]; ok {
			out[id] = n
		}
	}
	during := p.during
	p.during = nil
	p.mu.Unlock()
	if during != nil {
		during()
	}
	return out, nil
}

func (p *pools) set(id uuid.UUID, n int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.free[id] = n
}

func TestPoolStock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, b, notPool := uuid.New(), uuid.New(), uuid.New()
	setup := func() (*pools, *catalogue.PoolStock, *time.Time) {
		now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		return &pools{free: map[uuid.UUID]int64{a: 3, b: 5}}, catalogue.NewPoolStock(func() time.Time { return now }), &now
	}

	t.Run("fresh counts cost no read, stale ones are read again", func(t *testing.T) {
		t.Parallel()
		src, ps, now := setup()
		got, err := ps.Of(ctx, []uuid.UUID{a, b, notPool}, src.read)
		require.NoError(t, err)
		require.Equal(t, map[uuid.UUID]int64{a: 3, b: 5}, got, "ids that are no pool are left out")
		src.set(a, 2) // another instance's purchase
		got, err = ps.Of(ctx, []uuid.UUID{a, b}, src.read)
		require.NoError(t, err)
		require.Equal(t, map[uuid.UUID]int64{a: 3, b: 5}, got, "served from memory while fresh")
		require.Len(t, src.reads, 1)
		*now = now.Add(catalogue.PoolStockTTL)
		got, err = ps.Of(ctx, []uuid.UUID{a, b}, src.read)
		require.NoError(t, err)
		require.Equal(t, map[uuid.UUID]int64{a: 2, b: 5}, got, "read again once PoolStockTTL has passed")
		require.Equal(t, []uuid.UUID{a, b}, src.reads[1])
	})

	t.Run("a change on this instance is served at once", func(t *testing.T) {
		t.Parallel()
		src, ps, _ := setup()
		_, err := ps.Of(ctx, []uuid.UUID{a, b}, src.read)
		require.NoError(t, err)
		src.set(a, 2)
		ps.Changed(a)
		got, err := ps.Of(ctx, []uuid.UUID{a, b}, src.read)
		require.NoError(t, err)
		require.Equal(t, map[uuid.UUID]int64{a: 2, b: 5}, got)
		require.Equal(t, []uuid.UUID{a}, src.reads[1], "only the changed pool is read again")
	})

	t.Run("a count read while a change was made is not kept", func(t *testing.T) {
		t.Parallel()
		src, ps, _ := setup()
		src.during = func() { src.set(a, 2); ps.Changed(a) } // a purchase commits during the read
		got, err := ps.Of(ctx, []uuid.UUID{a}, src.read)
		require.NoError(t, err)
		require.Equal(t, map[uuid.UUID]int64{a: 3}, got, "the read answers what it counted")
		got, err = ps.Of(ctx, []uuid.UUID{a}, src.read)
		require.NoError(t, err)
		require.Equal(t, map[uuid.UUID]int64{a: 2}, got, "the next read counts again")
		require.Len(t, src.reads, 2)
	})
}
