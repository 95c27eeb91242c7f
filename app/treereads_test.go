package app

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/touchpoints"
)

// fixedCatalogue is a SnapshotSource of one catalogue that never changes.
type fixedCatalogue struct{ d catalogue.SnapshotData }

func (f fixedCatalogue) Version(context.Context) (int64, error) { return f.d.Version, nil }
func (f fixedCatalogue) Load(context.Context, time.Time) (catalogue.SnapshotData, error) {
	return f.d, nil
}
func (f fixedCatalogue) LoadChanges(context.Context, int64, int) (catalogue.Changes, bool, error) {
	return catalogue.Changes{}, false, nil
}

func (f fixedCatalogue) OrderCounts(context.Context, time.Time) (map[uuid.UUID]catalogue.OrderCount, error) {
	return nil, nil
}
func (f fixedCatalogue) Watch(ctx context.Context, changed func()) error {
	changed()
	<-ctx.Done()
	return ctx.Err()
}

// A rule read from memory skips the pools without free codes, reading further down the ranking
// (in more than one batch) until it has its limit; without InStock it keeps them, with their
// counts. Rewards by id come from memory when the snapshot holds them, else are left missing.
func TestTreeReadsSkipPoolsOutOfStock(t *testing.T) {
	game, coin := uuid.New(), uuid.New()
	d := catalogue.SnapshotData{Version: 1, Brands: []catalogue.Brand{{Code: "ACME", Name: "Acme", IsActive: true}}}
	free := map[uuid.UUID]int64{}
	var ranked []uuid.UUID // best first: x-score descending
	for n := range 40 {
		r := catalogue.Reward{ID: uuid.New(), Type: catalogue.Coupon, BrandCode: "ACME", Name: fmt.Sprintf("R%d", n), IsActive: true,
			MRP: money.Amount(1000), SellingPrice: money.Amount(900), XScore: float64(100 - n), CreatedAt: time.Unix(int64(n), 0)}
		if n == 5 {
			r.HasSharedCode = true // no pool: always in stock
		}
		d.Rewards = append(d.Rewards, r)
		ranked = append(ranked, r.ID)
		if n == 30 || n == 35 {
			free[r.ID] = 2
		}
	}
	var asked [][]uuid.UUID
	reads := treeReads{model: catalogue.NewReadModel(fixedCatalogue{d}, nil),
		free: func(_ context.Context, ids []uuid.UUID) (map[uuid.UUID]int64, error) {
			asked = append(asked, ids)
			out := map[uuid.UUID]int64{}
			for _, id := range ids {
				out[id] = free[id] // every one of them is a pool
			}
			return out, nil
		}}
	ctx := context.Background()
	q := touchpoints.RewardQuery{GameID: game, CoinID: coin, SortBy: touchpoints.SortDefault, InStock: true, Limit: 3, Now: time.Now()}
	got, err := reads.BestRewards(ctx, q)
	require.NoError(t, err)
	require.Len(t, got, 3)
	require.Equal(t, []uuid.UUID{ranked[5], ranked[30], ranked[35]}, []uuid.UUID{got[0].Reward.ID, got[1].Reward.ID, got[2].Reward.ID})
	require.Nil(t, got[0].Free)
	require.Equal(t, int64(2), *got[1].Free)
	require.Greater(t, len(asked), 1, "the ranking is read in batches")

	q.InStock = false
	got, err = reads.BestRewards(ctx, q)
	require.NoError(t, err)
	require.Len(t, got, 3)
	require.Equal(t, ranked[0], got[0].Reward.ID)
	require.Equal(t, int64(0), *got[0].Free)

	missing := uuid.New()
	items, rest, err := reads.Rewards(ctx, game, coin, []uuid.UUID{ranked[30], missing})
	require.NoError(t, err)
	require.Equal(t, []uuid.UUID{missing}, rest)
	require.Len(t, items, 1)
	require.Equal(t, ranked[30], items[0].Reward.ID)
	require.Equal(t, int64(2), *items[0].Free)
}
