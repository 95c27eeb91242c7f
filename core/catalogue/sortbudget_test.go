package catalogue

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

// Builds asked for together hold no more sort keys at once than maxSortingKeys, whatever the
// catalogue's size; one larger than the bound still runs, alone.
func TestViewBuildsHoldTheirKeysWithinTheBound(t *testing.T) {
	for _, rewards := range []int{10_000, 100_000, 4 * maxSortingKeys} {
		var held, most atomic.Int64
		var wg sync.WaitGroup
		for range 24 {
			wg.Go(func() {
				withSortBudget(rewards, func() *view {
					now := held.Add(int64(rewards))
					for m := most.Load(); now > m && !most.CompareAndSwap(m, now); m = most.Load() {
					}
					time.Sleep(time.Millisecond)
					held.Add(-int64(rewards))
					return &view{}
				})
			})
		}
		wg.Wait()
		require.LessOrEqual(t, most.Load(), int64(max(rewards, maxSortingKeys)), "%d rewards", rewards)
	}
}

// How much heap the builds of many views asked for together hold above a 100,000-reward
// snapshot (the peak of heap objects, sampled while they run): go test ./core/catalogue -run '^$'
// -bench ViewsAskedTogether -benchtime 3x
func BenchmarkViewsAskedTogether(b *testing.B) {
	defer debug.SetGCPercent(debug.SetGCPercent(20)) // the service's headroom at 100,000 rewards (app.tuneGC)
	d := syntheticSearchCatalogue(100_000)
	orders := []Order{OrderDefault, OrderNewest, OrderTrending, OrderPriceLowHigh, OrderPriceHighLow, OrderDiscount}
	var peak uint64
	for b.Loop() {
		b.StopTimer()
		s := newSnapshot(d, time.Now())
		runtime.GC()
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		metrics.Read(sample)
		base := sample[0].Value.Uint64()
		done := make(chan struct{})
		var most atomic.Uint64
		go func() {
			s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
			for {
				select {
				case <-done:
					return
				default:
				}
				metrics.Read(s)
				if v := s[0].Value.Uint64(); v > most.Load() {
					most.Store(v)
				}
				time.Sleep(50 * time.Microsecond)
			}
		}()
		b.StartTimer()
		var wg sync.WaitGroup
		for _, coins := range []int64{100, 200, 300, 400} {
			for _, o := range orders {
				wg.Go(func() {
					s.List(ListQuery{GameID: uuid.New(), CoinID: uuid.New(), CoinsPerUnit: coins, Order: o, Limit: 20, Now: time.Now()})
				})
			}
		}
		wg.Wait()
		b.StopTimer()
		close(done)
		peak = max(peak, most.Load()-base)
		b.StartTimer()
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
}
