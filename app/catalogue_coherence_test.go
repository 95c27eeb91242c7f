package app_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/jobs"
	"github.com/rewardsco/rewards/adapters/postgres"
	"github.com/rewardsco/rewards/adapters/postgres/pgtest"
	voucherhttp "github.com/rewardsco/rewards/adapters/vouchers"
	"github.com/rewardsco/rewards/app"
	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/studio"
	fakevouchers "github.com/rewardsco/rewards/fakes/vouchers"
)

// otherInstanceBound is how long a test waits for a change committed on one instance to be
// served by the others. The service's own delay is a notification, or VersionCheckInterval when
// one is lost, plus a load: 50–320 ms on a quiet machine, and the tests log it. The wait is
// longer because CI runs every package at once on two cores, where it once passed a second.
const otherInstanceBound = 5 * time.Second

// catalogueInstances are two instances of the service on one database, each with its
// catalogue read model kept current as Serve keeps it (ReadModel.Run), a game and its coin.
type catalogueInstances struct {
	a, b app.Modules
	pool *pgxpool.Pool
	q    catalogue.ListQuery
}

func setupCatalogueInstances(t *testing.T) *catalogueInstances {
	t.Helper()
	ctx := context.Background()
	vouchers := fakevouchers.New()
	mux := http.NewServeMux()
	vouchers.Register(mux)
	fakes := httptest.NewServer(mux)
	t.Cleanup(fakes.Close)
	pool := pgtest.Pool(t)
	instance := func() app.Modules {
		m, err := app.NewModules(postgres.NewDB(pool), jobs.New(pool, jobs.Options{}), app.External{
			SecretKey: "test-secret-key-test-secret-key-0123456789", PlayerTokenTTL: time.Hour, Currency: "INR",
			Vouchers: voucherhttp.New(fakes.URL+"/vouchers", ""), TestVouchers: voucherhttp.New(fakes.URL+"/vouchers", ""),
			PublicURL: "https://rewards.example.com",
		})
		require.NoError(t, err)
		runCtx, stop := context.WithCancel(ctx)
		t.Cleanup(stop) // before the pool closes (cleanups run last first)
		go m.CatalogueReads.Run(runCtx)
		return m
	}
	c := &catalogueInstances{a: instance(), b: instance(), pool: pool}
	s, err := c.a.Studios.CreateStudio(ctx, "Two Instances")
	require.NoError(t, err)
	g, err := c.a.Studios.CreateGame(ctx, studio.Game{StudioID: s.ID, Name: "Two Instances"})
	require.NoError(t, err)
	coin, err := c.a.Coins.CreateCoin(ctx, coins.Coin{GameID: g.ID, Name: "Gems", ImageURL: "https://cdn.example.com/g.png", CoinsPerUnit: 1})
	require.NoError(t, err)
	c.q = catalogue.ListQuery{GameID: g.ID, CoinID: coin.ID, Environment: studio.Test, Limit: 1000}
	return c
}

// listed returns what m lists to the game's players, by reward id.
func (c *catalogueInstances) listed(t *testing.T, m app.Modules) map[uuid.UUID]catalogue.Listed {
	t.Helper()
	list, total, err := m.Catalogue.List(context.Background(), c.q)
	require.NoError(t, err)
	require.Equal(t, int64(len(list)), total)
	out := make(map[uuid.UUID]catalogue.Listed, len(list))
	for _, l := range list {
		out[l.Reward.ID] = l
	}
	return out
}

// searched returns what m's search for text finds for the game's players, by reward id.
func (c *catalogueInstances) searched(t *testing.T, m app.Modules, text string) map[uuid.UUID]catalogue.Listed {
	t.Helper()
	res, err := m.Catalogue.Search(context.Background(), catalogue.SearchQuery{ListQuery: c.q, Text: text}, []string{"rewards"})
	require.NoError(t, err)
	out := make(map[uuid.UUID]catalogue.Listed, len(res.Rewards))
	for _, l := range res.Rewards {
		out[l.Reward.ID] = l
	}
	return out
}

// seen checks that a change made through instance a is served by a at its next request and by
// b within otherInstanceBound.
func (c *catalogueInstances) seen(t *testing.T, what string, ok func(map[uuid.UUID]catalogue.Listed) bool) {
	t.Helper()
	c.seenBy(t, what, c.listed, ok)
}

// seenBy is seen for what read returns.
func (c *catalogueInstances) seenBy(t *testing.T, what string, read func(*testing.T, app.Modules) map[uuid.UUID]catalogue.Listed,
	ok func(map[uuid.UUID]catalogue.Listed) bool) {
	t.Helper()
	require.True(t, ok(read(t, c.a)), "%s: not served at once by the instance that made it", what)
	start := time.Now()
	require.Eventually(t, func() bool { return ok(read(t, c.b)) }, otherInstanceBound, 10*time.Millisecond,
		"%s: not served by the other instance within %s", what, otherInstanceBound)
	t.Logf("%s: on the other instance after %s", what, time.Since(start).Round(time.Millisecond))
}

// An operator's change (a sync, hiding a reward, a coin price, deactivating a reward, a new
// coupon and its codes) is served at once by the instance that made it, and soon after by
// another instance on the same database.
func TestCatalogueChangesReachEveryInstance(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := setupCatalogueInstances(t)
	require.Empty(t, c.listed(t, c.a), "the catalogue starts empty")
	require.Empty(t, c.listed(t, c.b), "the catalogue starts empty")

	// A sync brings the provider's gift cards.
	st, err := c.a.Catalogue.Sync(ctx)
	require.NoError(t, err)
	require.NotZero(t, st.Created)
	c.seen(t, "sync", func(l map[uuid.UUID]catalogue.Listed) bool { return int64(len(l)) == st.Created })
	var ids []uuid.UUID
	for id := range c.listed(t, c.a) {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(x, y uuid.UUID) int { return slices.Compare(x[:], y[:]) })
	hidden, priced, gone := ids[0], ids[1], ids[2]

	yes := true
	hiddenName := c.listed(t, c.a)[hidden].Reward.Name
	searchHidden := func(t *testing.T, m app.Modules) map[uuid.UUID]catalogue.Listed { return c.searched(t, m, hiddenName) }
	require.Contains(t, searchHidden(t, c.b), hidden, "search finds the reward by its name")
	_, err = c.a.Catalogue.ChangeGameReward(ctx, c.q.GameID, hidden, catalogue.GameRewardChange{Hidden: &yes})
	require.NoError(t, err)
	c.seen(t, "hide", func(l map[uuid.UUID]catalogue.Listed) bool { _, ok := l[hidden]; return !ok })
	c.seenBy(t, "hide (search)", searchHidden, func(l map[uuid.UUID]catalogue.Listed) bool { _, ok := l[hidden]; return !ok })

	_, err = c.a.Catalogue.ChangeReward(ctx, priced, catalogue.RewardChange{Apply: func(r *catalogue.Reward) { r.FlagAllowStudioEditPrice = true }})
	require.NoError(t, err)
	_, err = c.a.Catalogue.ChangeGameReward(ctx, c.q.GameID, priced, catalogue.GameRewardChange{CoinPrices: map[uuid.UUID]int64{c.q.CoinID: 777}})
	require.NoError(t, err)
	c.seen(t, "price override", func(l map[uuid.UUID]catalogue.Listed) bool {
		return l[priced].Override != nil && *l[priced].Override == 777
	})

	_, err = c.a.Catalogue.ChangeReward(ctx, gone, catalogue.RewardChange{Apply: func(r *catalogue.Reward) { r.IsActive = false }})
	require.NoError(t, err)
	c.seen(t, "deactivate", func(l map[uuid.UUID]catalogue.Listed) bool { _, ok := l[gone]; return !ok })
	_, err = c.b.Catalogue.Fetch(ctx, c.q, gone, uuid.New())
	require.ErrorIs(t, err, catalogue.ErrRewardNotFound, "a deactivated reward is fetched by no instance")

	_, err = c.a.Catalogue.PutBrand(ctx, catalogue.Brand{Code: "HOUSE", Name: "House", IsActive: true})
	require.NoError(t, err)
	coupon, err := c.a.Catalogue.CreateReward(ctx, catalogue.NewReward{Reward: catalogue.Reward{Type: catalogue.Coupon, BrandCode: "HOUSE",
		Name: "House coupon", IsActive: true, MRP: money.Amount(100_00), SellingPrice: money.Amount(50_00)}})
	require.NoError(t, err)
	c.seen(t, "new coupon", func(l map[uuid.UUID]catalogue.Listed) bool {
		return l[coupon.ID].Free != nil && *l[coupon.ID].Free == 0
	})
	c.seenBy(t, "new coupon (search, a typo)", func(t *testing.T, m app.Modules) map[uuid.UUID]catalogue.Listed {
		return c.searched(t, m, "house coupn")
	}, func(l map[uuid.UUID]catalogue.Listed) bool { _, ok := l[coupon.ID]; return ok })
	_, _, err = c.a.Catalogue.AddCodes(ctx, coupon.ID, []catalogue.Code{{Code: "HOUSE-1"}, {Code: "HOUSE-2"}})
	require.NoError(t, err)
	c.seen(t, "new coupon codes", func(l map[uuid.UUID]catalogue.Listed) bool {
		return l[coupon.ID].Free != nil && *l[coupon.ID].Free == 2
	})
	brands, err := c.b.Catalogue.Brands(ctx, c.q.GameID, nil, "")
	require.NoError(t, err)
	require.True(t, slices.ContainsFunc(brands, func(m catalogue.BrandMeta) bool { return m.Brand.Code == "HOUSE" && m.RewardCount == 1 }),
		"the other instance's brands count the new coupon")
}

// A change whose notification never arrives (committed without one, or sent while an
// instance's listening connection was down) is still served by every instance soon after:
// the version check finds it, and the listener reconnects.
func TestLostCatalogueNotificationIsCaughtUp(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := setupCatalogueInstances(t)
	_, err := c.a.Catalogue.Sync(ctx)
	require.NoError(t, err)
	var id uuid.UUID
	for rid := range c.listed(t, c.a) {
		id = rid
		break
	}
	require.NotEqual(t, uuid.Nil, id)
	require.Eventually(t, func() bool { _, ok := c.listed(t, c.b)[id]; return ok }, otherInstanceBound, 10*time.Millisecond)

	// A rename committed with its trigger off, and the version moved by hand: no notification.
	tx, err := c.pool.Begin(ctx)
	require.NoError(t, err)
	for _, sql := range []string{
		`ALTER TABLE catalogue_rewards DISABLE TRIGGER catalogue_rewards_version`,
		`UPDATE catalogue_rewards SET name = 'Renamed quietly' WHERE id = '` + id.String() + `'`,
		`ALTER TABLE catalogue_rewards ENABLE TRIGGER catalogue_rewards_version`,
		`UPDATE catalogue_version SET version = version + 1`,
	} {
		_, err = tx.Exec(ctx, sql)
		require.NoError(t, err, sql)
	}
	require.NoError(t, tx.Commit(ctx))
	for name, m := range map[string]app.Modules{"a": c.a, "b": c.b} {
		start := time.Now()
		require.Eventually(t, func() bool { return c.listed(t, m)[id].Reward.Name == "Renamed quietly" }, otherInstanceBound,
			10*time.Millisecond, "instance %s missed a change that came without a notification", name)
		t.Logf("a change without a notification: on instance %s after %s", name, time.Since(start).Round(time.Millisecond))
	}

	// The listening connections are dropped, and a change is made before they are back: its
	// notification reaches no one.
	_, err = c.pool.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = 'LISTEN '||$1::text AND pid <> pg_backend_pid()`,
		postgres.CatalogueChannel)
	require.NoError(t, err)
	yes := true
	_, err = c.a.Catalogue.ChangeGameReward(ctx, c.q.GameID, id, catalogue.GameRewardChange{Hidden: &yes})
	require.NoError(t, err)
	require.Eventually(t, func() bool { _, ok := c.listed(t, c.b)[id]; return !ok }, otherInstanceBound, 10*time.Millisecond,
		"the instance whose listener was dropped missed the change")
	// And the listener is back: a notified change arrives too.
	require.Eventually(t, func() bool {
		var n int
		require.NoError(t, c.pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE query = 'LISTEN '||$1::text`, postgres.CatalogueChannel).Scan(&n))
		return n == 2
	}, 5*time.Second, 50*time.Millisecond, "both instances listen again")
}
