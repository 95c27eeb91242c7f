package postgres_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/postgres"
	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/idempotency"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/players"
	"github.com/rewardsco/rewards/core/studio"
)

type ordersBundle struct {
	catalogueBundle
	orders  *orders.Service
	players *players.Service
	caller  studio.Caller
}

func setupOrders(t *testing.T) ordersBundle {
	t.Helper()
	b := ordersBundle{catalogueBundle: setupCatalogue(t)}
	database := postgres.NewDB(b.pool)
	keeper := idempotency.NewKeeper(database, postgres.NewIdempotencyStore(database))
	b.orders = orders.NewService(database, postgres.NewOrdersStore(database), postgres.NewCoinsStore(database, nil),
		postgres.NewCatalogueStore(database), keeper, orders.Config{Box: b.box})
	b.players = players.NewService(database, postgres.NewPlayersStore(database), postgres.NewStudioStore(database), players.Config{})
	b.caller = studio.Caller{GameID: b.game.ID, StudioID: b.game.StudioID, Environment: studio.Test}
	return b
}

// player creates a player holding balance coins.
func (b ordersBundle) player(t *testing.T, name string, balance int64) players.Player {
	t.Helper()
	ctx := context.Background()
	p, err := b.players.CreateWithUUID(ctx, b.caller, name)
	require.NoError(t, err)
	if balance > 0 {
		_, _, err = b.coins.Distribute(ctx, coins.Movement{GameID: b.game.ID, Environment: studio.Test, PlayerID: p.ID,
			UserUUID: name, CoinID: b.coin.ID, Amount: balance})
		require.NoError(t, err)
	}
	return p.Player
}

func (b ordersBundle) coupon(t *testing.T, priceUnits int64, codes int) catalogue.Reward {
	t.Helper()
	ctx := context.Background()
	_, err := b.svc.PutBrand(ctx, catalogue.Brand{Code: "CAFE", Name: "Cafe", IsActive: true})
	require.NoError(t, err)
	r, err := b.svc.CreateReward(ctx, catalogue.NewReward{Reward: catalogue.Reward{Type: catalogue.Coupon, BrandCode: "CAFE",
		Name: "Free coffee", IsActive: true, MRP: inr(priceUnits), SellingPrice: inr(priceUnits)}})
	require.NoError(t, err)
	if codes > 0 {
		list := make([]catalogue.Code, codes)
		for i := range list {
			list[i] = catalogue.Code{Code: fmt.Sprintf("COFFEE-%03d", i)}
		}
		_, _, err = b.svc.AddCodes(ctx, r.ID, list)
		require.NoError(t, err)
	}
	return r
}

func (b ordersBundle) balance(t *testing.T, p players.Player) int64 {
	t.Helper()
	funds, err := b.coins.Funds(context.Background(), b.game.ID, p.ID)
	require.NoError(t, err)
	return funds[0].Balance
}

// 50 players buy from a pool of 20 codes at once: 20 succeed with 20 different codes, 30 get
// OUT_OF_STOCK and keep their coins.
func TestConcurrentPurchasesOfAPoolNeverShareACode(t *testing.T) {
	t.Parallel()
	b := setupOrders(t)
	ctx := context.Background()
	r := b.coupon(t, 5, 20) // 50 coins at 10 coins a unit
	buyers := make([]players.Player, 50)
	for i := range buyers {
		buyers[i] = b.player(t, fmt.Sprintf("buyer-%02d", i), 100)
	}
	var wg sync.WaitGroup
	views := make([]orders.View, len(buyers))
	errs := make([]error, len(buyers))
	for i, p := range buyers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			views[i], _, errs[i] = b.orders.Buy(ctx, orders.Purchase{Caller: b.caller, Player: p, RewardID: r.ID, CoinID: b.coin.ID})
		}()
	}
	wg.Wait()
	codes := map[string]bool{}
	var ok, out int
	for i, err := range errs {
		switch {
		case err == nil:
			ok++
			require.Equal(t, orders.Success, views[i].Status)
			require.Len(t, views[i].Codes, 1)
			require.False(t, codes[views[i].Codes[0].Code], "code %s given twice", views[i].Codes[0].Code)
			codes[views[i].Codes[0].Code] = true
			require.Equal(t, int64(50), b.balance(t, buyers[i]))
		default:
			require.ErrorIs(t, err, orders.ErrOutOfStock)
			out++
			require.Equal(t, int64(100), b.balance(t, buyers[i]), "a refused buyer keeps every coin")
		}
	}
	require.Equal(t, 20, ok)
	require.Equal(t, 30, out)
	require.Len(t, codes, 20)
	b.requireLedgerConsistent(t)
}

// A player with 100 coins buys a reward of 30 ten times at once: exactly 3 succeed.
func TestConcurrentPurchasesNeverOverspend(t *testing.T) {
	t.Parallel()
	b := setupOrders(t)
	ctx := context.Background()
	r := b.coupon(t, 3, 50) // 30 coins
	p := b.player(t, "spender", 100)
	var wg sync.WaitGroup
	errs := make([]error, 10)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, errs[i] = b.orders.Buy(ctx, orders.Purchase{Caller: b.caller, Player: p, RewardID: r.ID, CoinID: b.coin.ID})
		}()
	}
	wg.Wait()
	var ok int
	for _, err := range errs {
		if err == nil {
			ok++
		} else {
			require.ErrorIs(t, err, coins.ErrInsufficientBalance)
		}
	}
	require.Equal(t, 3, ok)
	require.Equal(t, int64(10), b.balance(t, p))
	// The codes are taken by the statement that carries the debit: a refused debit takes none.
	var free int
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT count(*) FROM catalogue_codes WHERE reward_id = $1 AND order_id IS NULL`, r.ID).Scan(&free))
	require.Equal(t, 47, free)
	list, total, err := b.orders.PlayerOrders(ctx, p.ID, nil, 100, 0)
	require.NoError(t, err)
	require.Equal(t, int64(3), total)
	require.Len(t, list, 3)
	b.requireLedgerConsistent(t)
}

func TestPurchaseRulesAndIdempotency(t *testing.T) {
	t.Parallel()
	b := setupOrders(t)
	ctx := context.Background()
	r := b.coupon(t, 3, 5)
	p := b.player(t, "careful", 100)
	buy := func(key string) (orders.View, bool, error) {
		return b.orders.Buy(ctx, orders.Purchase{Caller: b.caller, Player: p, RewardID: r.ID, CoinID: b.coin.ID, IdempotencyKey: key})
	}
	first, replayed, err := buy("k1")
	require.NoError(t, err)
	require.False(t, replayed)
	again, replayed, err := buy("k1")
	require.NoError(t, err)
	require.True(t, replayed, "the same key replays")
	require.Equal(t, first.ID, again.ID)
	require.Equal(t, first.Codes, again.Codes)
	require.Equal(t, int64(70), b.balance(t, p), "a replay spends nothing")

	_, _, err = b.orders.Buy(ctx, orders.Purchase{Caller: b.caller, Player: p, RewardID: r.ID, CoinID: b.coin.ID, Quantity: 2, IdempotencyKey: "k1"})
	require.ErrorIs(t, err, idempotency.ErrKeyReused)

	// Cooldown: a second purchase inside it is refused with the time to wait.
	_, err = b.svc.ChangeReward(ctx, r.ID, catalogue.RewardChange{Apply: func(x *catalogue.Reward) { x.PurchaseCooldown = 3600e9 }})
	require.NoError(t, err)
	_, _, err = buy("")
	require.ErrorIs(t, err, orders.ErrCooldown)
	coded, ok := errs.As(err)
	require.True(t, ok)
	require.Greater(t, coded.RetryAfter, 59*time.Minute)

	// Verify: true only for the caller's game and environment.
	verified, err := b.orders.Verify(ctx, b.caller, first.ID)
	require.NoError(t, err)
	require.True(t, verified)
	other := b.caller
	other.Environment = studio.Live
	verified, err = b.orders.Verify(ctx, other, first.ID)
	require.NoError(t, err)
	require.False(t, verified)
	verified, err = b.orders.Verify(ctx, b.caller, uuid.New())
	require.NoError(t, err)
	require.False(t, verified)

	// Savings: the face value of successful orders.
	h, err := b.coins.History(ctx, b.game.ID, p.ID, nil, 10, 0)
	require.NoError(t, err)
	require.Equal(t, "3.00", h.Savings)

	// Another player cannot read the order.
	_, err = b.orders.PlayerOrder(ctx, uuid.New(), first.ID)
	require.ErrorIs(t, err, orders.ErrOrderNotFound)
	_, tr, err := b.orders.History(ctx, first.ID)
	require.NoError(t, err)
	require.Len(t, tr, 2, "INITIATED, then SUCCESS")
	require.Equal(t, orders.Success, tr[1].To)
}

// requireLedgerConsistent checks that every balance is the sum of its journal.
func (b ordersBundle) requireLedgerConsistent(t *testing.T) {
	t.Helper()
	var bad int
	require.NoError(t, b.pool.QueryRow(context.Background(), `
		SELECT count(*) FROM balances bl
		WHERE bl.balance <> (SELECT coalesce(sum(CASE WHEN type = 'CREDIT' THEN amount ELSE -amount END), 0)
		                     FROM coin_transactions t WHERE t.player_id = bl.player_id AND t.coin_id = bl.coin_id)`).Scan(&bad))
	require.Zero(t, bad, "balances that are not the sum of their journal")
}

// A physical good needs one of the player's Indian addresses and ends SUCCESS when placed, with
// the address kept on the order.
func TestPhysicalGoodNeedsAnAddress(t *testing.T) {
	t.Parallel()
	b := setupOrders(t)
	ctx := context.Background()
	_, err := b.svc.PutBrand(ctx, catalogue.Brand{Code: "BOAT", Name: "boAt", IsActive: true})
	require.NoError(t, err)
	good, err := b.svc.CreateReward(ctx, catalogue.NewReward{Reward: catalogue.Reward{Type: catalogue.Physical, BrandCode: "BOAT",
		Name: "Earbuds", IsActive: true, MRP: inr(20), SellingPrice: inr(15)}})
	require.NoError(t, err)
	p := b.player(t, "homebody", 1000)
	buy := func(p players.Player, address string) (orders.View, error) {
		v, _, err := b.orders.Buy(ctx, orders.Purchase{Caller: b.caller, Player: p, RewardID: good.ID, CoinID: b.coin.ID, AddressID: address})
		return v, err
	}
	_, err = buy(p, "")
	require.ErrorIs(t, err, orders.ErrAddressRequired)
	_, err = buy(p, "1")
	require.ErrorIs(t, err, orders.ErrAddressRequired, "the player has no address yet")
	require.Equal(t, int64(1000), b.balance(t, p), "refusals cost nothing")

	home := []players.Address{{Name: "Asha", Line1: "12 MG Road", City: "Bengaluru", State: "Karnataka", PinCode: "560001"}}
	p, err = b.players.UpdateProfile(ctx, p, players.ProfileUpdate{Addresses: &home})
	require.NoError(t, err)
	_, err = buy(p, "2")
	require.ErrorIs(t, err, orders.ErrAddressRequired, "there is no second address")
	v, err := buy(p, "1")
	require.NoError(t, err)
	require.Equal(t, orders.Success, v.Status)
	require.Empty(t, v.Codes)
	require.NotNil(t, v.Address)
	require.Equal(t, "560001", v.Address.PinCode)
	require.Equal(t, int64(1000-150), b.balance(t, p))
}

// A coupon purchase from a pool makes 3 round trips: the reward and coin, then BEGIN with the
// player's lock, the debit and the take of its code, and the order with the rest and the
// COMMIT. The take is a prepared statement, which a pipelined batch can carry; planned afresh
// (customPlans, as the catalogue's lists are) it would go on its own after a flush of what it
// carries, a round trip more.
func TestPoolPurchaseRoundTrips(t *testing.T) {
	ctx := context.Background()
	b := setupOrders(t)
	reward := b.coupon(t, 10, 10)
	p := b.player(t, "counted", 100_000)
	_, svc := b.onOneConnection(t, postgres.RoundTripCounter{})
	buy := func() {
		v, _, err := svc.Buy(ctx, orders.Purchase{Caller: b.caller, Player: p, RewardID: reward.ID, CoinID: b.coin.ID})
		require.NoError(t, err)
		require.Equal(t, orders.Success, v.Status)
		require.Len(t, v.Codes, 1)
	}
	require.EqualValues(t, 3, trips(t, buy))
}

// onOneConnection is the orders service on a pool of one connection to b's database, traced
// by tracer when it is not nil.
func (b ordersBundle) onOneConnection(t *testing.T, tracer pgx.QueryTracer) (*pgxpool.Pool, *orders.Service) {
	t.Helper()
	cfg := b.pool.Config().Copy()
	cfg.MaxConns = 1
	if tracer != nil {
		cfg.ConnConfig.Tracer = tracer
	}
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	database := postgres.NewDB(pool)
	keeper := idempotency.NewKeeper(database, postgres.NewIdempotencyStore(database))
	return pool, orders.NewService(database, postgres.NewOrdersStore(database), postgres.NewCoinsStore(database, nil),
		postgres.NewCatalogueStore(database), keeper, orders.Config{Box: b.box})
}

// A purchase's check of its reward and coin (GetVisibleWithCoin) and the take of a pool's codes
// run on prepared statements whose generic plans PostgreSQL keeps, rather than being planned at
// each purchase (planning GetVisibleWithCoin's join cost six times its execution; planning the
// take of a code cost more than taking it). The pool is of a game's size and its statistics
// taken: the take's generic plan is costed for that pool, and a plan that grows with the pool
// (the join of the codes with the ones taken) is never kept.
func TestPurchaseStatementsKeepTheirPlans(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupOrders(t)
	reward := b.coupon(t, 10, 5_000)
	_, err := b.pool.Exec(ctx, "ANALYZE catalogue_codes")
	require.NoError(t, err)
	p := b.player(t, "planned", 100_000)
	pool, svc := b.onOneConnection(t, nil) // every purchase on one connection, with its prepared statements
	for range 10 {
		_, _, err := svc.Buy(ctx, orders.Purchase{Caller: b.caller, Player: p, RewardID: reward.ID, CoinID: b.coin.ID})
		require.NoError(t, err)
	}
	for _, name := range []string{"CatalogueGetVisibleWithCoin", "CatalogueTakeCode"} {
		var generic int64
		require.NoError(t, pool.QueryRow(ctx, `SELECT coalesce(sum(generic_plans), 0) FROM pg_prepared_statements
			WHERE statement LIKE '-- name: ' || $1 || ' %'`, name).Scan(&generic))
		require.GreaterOrEqual(t, generic, int64(5), "%s: runs of its kept plan", name)
	}
}

// frozenVersion is the storage of a read model that has not heard of the catalogue's changes
// since freeze was called: another instance's read model, a moment behind.
type frozenVersion struct {
	catalogue.SnapshotSource
	mu     sync.Mutex
	frozen *int64
}

func (f *frozenVersion) freeze(t *testing.T) {
	t.Helper()
	v, err := f.SnapshotSource.Version(context.Background())
	require.NoError(t, err)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.frozen = &v
}

func (f *frozenVersion) thaw() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.frozen = nil
}

func (f *frozenVersion) Version(ctx context.Context) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.frozen != nil {
		return *f.frozen, nil
	}
	return f.SnapshotSource.Version(ctx)
}

// statementNames records the names of the sqlc statements sent (its add is a sentSQL).
type statementNames struct {
	mu    sync.Mutex
	names []string
}

func (s *statementNames) add(sql string) {
	if name, ok := strings.CutPrefix(sql, "-- name: "); ok {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.names = append(s.names, strings.Fields(name)[0])
	}
}

func (s *statementNames) take() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.names
	s.names = nil
	return out
}

// sentSQL is a pgx tracer that hands it every statement a pool sends, alone or in a batch.
type sentSQL func(sql string)

func (f sentSQL) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	f(d.SQL)
	return ctx
}
func (sentSQL) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (sentSQL) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return ctx
}
func (f sentSQL) TraceBatchQuery(_ context.Context, _ *pgx.Conn, d pgx.TraceBatchQueryData) { f(d.SQL) }
func (sentSQL) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)             {}

// A purchase planned from memory (the catalogue's read model, the coin's value this instance
// keeps) sends no statement for its plan, and its transaction checks the plan: a coin revalued
// or a reward repriced behind this instance's back (by another instance) rolls it back, and it
// is planned again from the storage, at the new price. It never charges a stale price, and
// never charges twice.
func TestPurchasePlannedFromMemoryIsCheckedInItsTransaction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupOrders(t)
	reward := b.coupon(t, 10, 20)
	p := b.player(t, "remembered", 100_000)
	names := &statementNames{}
	cfg := b.pool.Config().Copy()
	cfg.ConnConfig.Tracer = sentSQL(names.add)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	database := postgres.NewDB(pool)
	src := &frozenVersion{SnapshotSource: postgres.NewCatalogueSnapshots(database)}
	reads := catalogue.NewReadModel(src, nil)
	_, err = reads.Current(ctx) // loaded: a purchase never waits for the first load
	require.NoError(t, err)
	svc := orders.NewService(database, postgres.NewOrdersStore(database), postgres.NewCoinsStore(database, nil),
		postgres.NewCatalogueStore(database), idempotency.NewKeeper(database, postgres.NewIdempotencyStore(database)),
		orders.Config{Box: b.box, ReadModel: reads, CoinValues: coins.NewValues()})
	purchase := func(key string, face *money.Amount) orders.Purchase {
		return orders.Purchase{Caller: b.caller, Player: p, RewardID: reward.ID, CoinID: b.coin.ID, IdempotencyKey: key, Denomination: face}
	}
	buy := func(key string, face *money.Amount) orders.View {
		t.Helper()
		v, _, err := svc.Buy(ctx, purchase(key, face))
		require.NoError(t, err)
		require.Equal(t, orders.Success, v.Status)
		return v
	}
	price := reward.CoinPrice(reward.MRP, b.coin.CoinsPerUnit, nil)
	spent := int64(0)

	first := buy("", nil)
	require.Equal(t, price, first.CoinsSpent)
	require.NotContains(t, names.take(), "CatalogueGetVisibleWithCoin", "planned from memory")
	spent += buy("", nil).CoinsSpent
	require.NotContains(t, names.take(), "CatalogueGetVisibleWithCoin", "planned from memory")

	// Another instance reprices the reward: this one's read model has not heard of it yet (the
	// catalogue's version moved; the coin's value did not).
	src.freeze(t)
	_, err = b.svc.ChangeReward(ctx, reward.ID, catalogue.RewardChange{Apply: func(r *catalogue.Reward) { r.SellingPrice = r.MRP / 2 }})
	require.NoError(t, err)
	repriced := buy("after-repricing", nil)
	require.Equal(t, price/2, repriced.CoinsSpent, "the reward's new price, not the one in memory")
	require.Contains(t, names.take(), "CatalogueGetVisibleWithCoin", "planned again from the storage")
	again, replayed, err := svc.Buy(ctx, purchase("after-repricing", nil))
	require.NoError(t, err)
	require.True(t, replayed, "the key kept the purchase made again under it")
	require.Equal(t, repriced.ID, again.ID)

	// Another instance revalues the coin: this one still holds its old value.
	src.thaw()
	spent += buy("", nil).CoinsSpent // the coin's value, in memory again
	names.take()
	b.exec(`UPDATE coins SET coins_per_unit = coins_per_unit * 2 WHERE id = $1`, b.coin.ID)
	revalued := buy("", nil)
	require.Equal(t, price, revalued.CoinsSpent, "the coin's new value, not the one in memory")
	require.Contains(t, names.take(), "CatalogueGetVisibleWithCoin", "planned again from the storage")
	// The value found stale is forgotten: the next purchase is planned from memory again.
	spent += buy("", nil).CoinsSpent
	require.NotContains(t, names.take(), "CatalogueGetVisibleWithCoin", "planned from memory, the coin's value read again")

	// A refusal is the storage's. A face value the read model does not know yet:
	src.freeze(t)
	_, err = b.svc.ChangeReward(ctx, reward.ID, catalogue.RewardChange{Apply: func(r *catalogue.Reward) {
		r.MRP, r.SellingPrice = 2*r.MRP, 2*r.MRP
	}})
	require.NoError(t, err)
	newFace := 2 * reward.MRP
	refaced := buy("", &newFace)
	require.Equal(t, 4*price, refaced.CoinsSpent)
	// A cooldown lifted behind this instance's back:
	src.thaw()
	_, err = b.svc.ChangeReward(ctx, reward.ID, catalogue.RewardChange{Apply: func(r *catalogue.Reward) { r.PurchaseCooldown = time.Hour }})
	require.NoError(t, err)
	_, _, err = svc.Buy(ctx, purchase("", nil))
	require.ErrorIs(t, err, orders.ErrCooldown, "the read model has the cooldown")
	src.freeze(t)
	_, err = b.svc.ChangeReward(ctx, reward.ID, catalogue.RewardChange{Apply: func(r *catalogue.Reward) { r.PurchaseCooldown = 0 }})
	require.NoError(t, err)
	names.take()
	lifted := buy("", nil)
	require.Contains(t, names.take(), "CatalogueGetVisibleWithCoin", "planned again from the storage")

	// Each purchase charged once, and its order is the only one.
	spent += first.CoinsSpent + repriced.CoinsSpent + revalued.CoinsSpent + refaced.CoinsSpent + lifted.CoinsSpent
	require.Equal(t, int64(100_000)-spent, b.balance(t, p))
	var n int
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT count(*) FROM orders WHERE player_id = $1`, p.ID).Scan(&n))
	require.Equal(t, 8, n)
	b.requireLedgerConsistent(t)
}
