package coins_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/authcache"
	"github.com/rewardsco/rewards/core/coins"
)

// countingRepo counts the coin lookups that reach the storage.
type countingRepo struct {
	coins.Repo
	gets atomic.Int32
}

func (r *countingRepo) GetCoin(ctx context.Context, gameID, coinID uuid.UUID) (coins.Coin, error) {
	r.gets.Add(1)
	return r.Repo.GetCoin(ctx, gameID, coinID)
}

// A coin's value is read once and then served from memory; a change made through the Service
// that holds the cache is served at once, and another instance's cache serves it within
// authcache.TTL.
func TestValuesServeChangesAtOnceHereAndWithinTTLElsewhere(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	repo := &countingRepo{Repo: b.coins}
	here, elsewhere := coins.NewValues(), coins.NewValues()
	b.svc.Values = here

	for _, v := range []*coins.Values{here, here, elsewhere, elsewhere} {
		n, err := v.CoinsPerUnit(ctx, repo, b.game.ID, b.coin.ID)
		require.NoError(t, err)
		require.Equal(t, b.coin.CoinsPerUnit, n)
	}
	require.Equal(t, int32(2), repo.gets.Load(), "one read per cache")

	_, err := b.svc.SetCoinsPerUnit(ctx, b.coin.ID, 7)
	require.NoError(t, err)
	n, err := here.CoinsPerUnit(ctx, repo, b.game.ID, b.coin.ID)
	require.NoError(t, err)
	require.Equal(t, int64(7), n, "the instance that changed the value prices in it at once")
	require.Eventually(t, func() bool {
		n, err := elsewhere.CoinsPerUnit(ctx, repo, b.game.ID, b.coin.ID)
		return err == nil && n == 7
	}, authcache.TTL+200*time.Millisecond, 10*time.Millisecond, "another instance prices in the new value within the TTL")
}

// A coin that is not the game's is an error each time, never kept: a coin created later is
// priced at once.
func TestValuesKeepNoMiss(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	repo := &countingRepo{Repo: b.coins}
	v := coins.NewValues()
	other := uuid.New()
	for range 2 {
		_, err := v.CoinsPerUnit(ctx, repo, other, b.coin.ID)
		require.ErrorIs(t, err, coins.ErrCoinNotFound)
	}
	require.Equal(t, int32(2), repo.gets.Load())
}
