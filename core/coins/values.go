package coins

import (
	"context"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/authcache"
)

// Values keeps what coins are worth (CoinsPerUnit) in memory for authcache.TTL, so that the
// store's reads (lists and fetches, priced in a coin) cost no round trip for the coin. A change
// made through this instance's Service (SetCoinsPerUnit) is served at once; other instances
// serve it once their entry expires, within authcache.TTL. Coins are never deleted and a
// lookup that finds no coin is not kept, so a new coin is priced at once everywhere.
type Values struct {
	cache *authcache.Cache[valueKey, int64]
}

type valueKey struct{ game, coin uuid.UUID }

// maxValues bounds the coins Values keeps (least recently used out first).
const maxValues = 10_000

// NewValues returns an empty cache of coin values.
func NewValues() *Values {
	return &Values{cache: authcache.New[valueKey, int64](maxValues)}
}

// CoinsPerUnit returns what the game's coin is worth, read through repo when it is not in
// memory: ErrCoinNotFound unless the coin is the game's (as Repo.GetCoin).
func (v *Values) CoinsPerUnit(ctx context.Context, repo Repo, gameID, coinID uuid.UUID) (int64, error) {
	k := valueKey{game: gameID, coin: coinID}
	if n, ok := v.cache.Get(k); ok {
		return n, nil
	}
	gen := v.cache.Generation()
	c, err := repo.GetCoin(ctx, gameID, coinID)
	if err != nil {
		return 0, err
	}
	v.cache.Put(k, c.CoinsPerUnit, gen)
	return c.CoinsPerUnit, nil
}

// Forget forgets what a coin was worth, and any lookup of it in flight, so that the next lookup
// reads it again: SetCoinsPerUnit calls it once its change is committed, and a purchase whose
// transaction found the value it was planned with out of date calls it too.
func (v *Values) Forget(coinID uuid.UUID) {
	v.cache.Drop(func(k valueKey, _ int64) bool { return k.coin == coinID })
}
