package vouchers_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	adapter "github.com/rewardsco/rewards/adapters/vouchers"
	core "github.com/rewardsco/rewards/core/vouchers"
)

// countingStock answers stock after a short wait and counts the calls.
type countingStock struct {
	core.Provider
	calls atomic.Int64
	fail  atomic.Bool
}

func (c *countingStock) Stock(context.Context, string) ([]core.Stock, error) {
	c.calls.Add(1)
	time.Sleep(20 * time.Millisecond)
	if c.fail.Load() {
		return nil, core.ErrUnavailable
	}
	return []core.Stock{{Denomination: 500, Available: true}}, nil
}

// Stock reads share one provider call per product and ttl; errors are not kept.
func TestStockCache(t *testing.T) {
	t.Parallel()
	p := &countingStock{}
	c := adapter.NewStockCache(p, 200*time.Millisecond)
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			levels, err := c.Stock(context.Background(), "utid-1")
			require.NoError(t, err)
			require.Len(t, levels, 1)
		}()
	}
	wg.Wait()
	require.Equal(t, int64(1), p.calls.Load(), "50 concurrent reads, one provider call")
	_, err := c.Stock(context.Background(), "utid-1")
	require.NoError(t, err)
	require.Equal(t, int64(1), p.calls.Load(), "within the ttl, from the cache")
	_, err = c.Stock(context.Background(), "utid-2")
	require.NoError(t, err)
	require.Equal(t, int64(2), p.calls.Load(), "another product is asked")

	time.Sleep(250 * time.Millisecond)
	p.fail.Store(true)
	_, err = c.Stock(context.Background(), "utid-1")
	require.True(t, errors.Is(err, core.ErrUnavailable))
	p.fail.Store(false)
	_, err = c.Stock(context.Background(), "utid-1")
	require.NoError(t, err, "an error is not kept")
	require.Equal(t, int64(4), p.calls.Load())
}
