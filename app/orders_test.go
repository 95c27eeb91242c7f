package app_test

import (
	"context"
	"net/http"
	"net/http/httptest"
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
	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/players"
	"github.com/rewardsco/rewards/core/store"
	"github.com/rewardsco/rewards/core/studio"
	fakevouchers "github.com/rewardsco/rewards/fakes/vouchers"
)

// sagaBundle is the modules on real PostgreSQL with the fake voucher provider over HTTP; the
// fulfilment job is run by hand (Fulfil) where a River worker would run it.
type sagaBundle struct {
	m        app.Modules
	pool     *pgxpool.Pool
	queue    *jobs.Queue
	fake     *fakevouchers.Provider
	caller   studio.Caller
	coin     coins.Coin
	player   players.Player
	products map[string]uuid.UUID // sandbox or brand code → reward
}

func setupSaga(t *testing.T, deadline time.Duration) sagaBundle {
	t.Helper()
	ctx := context.Background()
	fake := fakevouchers.New(fakevouchers.WithSandboxDelay(600 * time.Millisecond))
	mux := http.NewServeMux()
	fake.Register(mux)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	pool := pgtest.Pool(t)
	queue := jobs.New(pool, jobs.Options{})
	m, err := app.NewModules(postgres.NewDB(pool), queue, app.External{
		SecretKey: "test-secret-key-test-secret-key-0123456789", PlayerTokenTTL: time.Hour, Currency: "INR",
		// The fake is both the live provider and the test environment's sandbox, for its
		// behaviour switches.
		Vouchers: voucherhttp.New(srv.URL+"/vouchers", ""), TestVouchers: voucherhttp.New(srv.URL+"/vouchers", ""),
		VoucherWait: 300 * time.Millisecond, VoucherPoll: 100 * time.Millisecond, VoucherDeadline: deadline,
	})
	require.NoError(t, err)
	st, err := m.Catalogue.Sync(ctx)
	require.NoError(t, err)
	require.Greater(t, st.Created, int64(30))
	s, err := m.Studios.CreateStudio(ctx, "Saga Studio")
	require.NoError(t, err)
	g, err := m.Studios.CreateGame(ctx, studio.Game{StudioID: s.ID, Name: "Saga Game"})
	require.NoError(t, err)
	b := sagaBundle{m: m, pool: pool, queue: queue, fake: fake, caller: studio.Caller{GameID: g.ID, StudioID: s.ID, Environment: studio.Test}, products: map[string]uuid.UUID{}}
	b.coin, err = m.Coins.CreateCoin(ctx, coins.Coin{GameID: g.ID, Name: "Gems", ImageURL: "https://cdn.example.com/g.png", CoinsPerUnit: 1})
	require.NoError(t, err)
	created, err := m.Players.CreateWithUUID(ctx, b.caller, "buyer")
	require.NoError(t, err)
	b.player = created.Player
	_, _, err = m.Coins.Distribute(ctx, coins.Movement{GameID: g.ID, Environment: studio.Test, PlayerID: b.player.ID,
		UserUUID: "buyer", CoinID: b.coin.ID, Amount: 100_000})
	require.NoError(t, err)
	for _, code := range []string{"AMAZON", "SANDBOX_FAIL", "SANDBOX_SLOW", "SANDBOX_SLOW_FAIL", "SANDBOX_NO_STOCK"} {
		list, _, err := m.Catalogue.List(ctx, catalogue.ListQuery{GameID: g.ID, CoinID: b.coin.ID, Brand: code, Limit: 1})
		require.NoError(t, err)
		require.Len(t, list, 1, code)
		b.products[code] = list[0].Reward.ID
	}
	return b
}

func (b sagaBundle) buy(t *testing.T, brand string) (orders.View, error) {
	t.Helper()
	ctx := context.Background()
	d, err := b.m.Catalogue.Fetch(ctx, catalogue.ListQuery{GameID: b.caller.GameID, CoinID: b.coin.ID}, b.products[brand], b.player.ID)
	require.NoError(t, err)
	var face *money.Amount
	if len(d.Faces) > 0 {
		face = &d.Faces[0].Value
	} else {
		v := d.Reward.MinValue
		face = &v
	}
	v, _, err := b.m.Orders.Buy(ctx, orders.Purchase{Caller: b.caller, Player: b.player, RewardID: b.products[brand], CoinID: b.coin.ID, Denomination: face})
	return v, err
}

func (b sagaBundle) balance(t *testing.T) int64 {
	t.Helper()
	funds, err := b.m.Coins.Funds(context.Background(), b.caller.GameID, b.player.ID)
	require.NoError(t, err)
	return funds[0].Balance
}

// jobs counts the fulfilment jobs of an order still queued (not taken by a worker).
func (b sagaBundle) jobs(t *testing.T, id uuid.UUID) int {
	t.Helper()
	var n int
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT count(*) FROM river_job
		WHERE kind = 'fulfil_order' AND args->>'order_id' = $1 AND state IN ('scheduled', 'available')`, id.String()).Scan(&n))
	return n
}

// runJob works an order's fulfilment as its River job would, until it is final.
func (b sagaBundle) runJob(t *testing.T, id uuid.UUID) orders.View {
	t.Helper()
	finishOrder(t, b, id)
	v, err := b.m.Orders.PlayerOrder(context.Background(), b.player.ID, id)
	require.NoError(t, err)
	return v
}

// An order the provider sends has no job while its purchase waits for the provider; one whose
// process died before handing it to a job (simulated: its job deleted) gets one from the
// recovery, once, and a job queued by the hand-over too keeps it one.
func TestOrdersLeftWithoutAJobAreRecovered(t *testing.T) {
	t.Parallel()
	b := setupSaga(t, time.Hour)
	ctx := context.Background()
	done, err := b.buy(t, "AMAZON")
	require.NoError(t, err)
	require.Equal(t, orders.Success, done.Status)
	v, err := b.buy(t, "SANDBOX_SLOW")
	require.NoError(t, err)
	require.Equal(t, orders.Timeout, v.Status)
	require.Equal(t, 1, b.jobs(t, v.ID), "handed to a job once its wait was over")
	_, err = b.pool.Exec(ctx, `DELETE FROM river_job WHERE kind = 'fulfil_order' AND args->>'order_id' = $1`, v.ID.String())
	require.NoError(t, err)

	n, err := b.queue.RecoverOrders(ctx, time.Hour)
	require.NoError(t, err)
	require.Zero(t, n, "an order changed within the wait (and grace) is its process's")
	n, err = b.queue.RecoverOrders(ctx, 0)
	require.NoError(t, err)
	require.Equal(t, 1, n, "the open order without a job, not the final one")
	require.Equal(t, 1, b.jobs(t, v.ID))
	n, err = b.queue.RecoverOrders(ctx, 0)
	require.NoError(t, err)
	require.Zero(t, n, "an order with a job is left alone")
	require.NoError(t, postgres.NewDB(b.pool).InTx(ctx, func(tx store.Tx) error {
		return b.queue.ScheduleFulfilment(ctx, tx, v.ID, time.Now())
	}))
	require.Equal(t, 1, b.jobs(t, v.ID), "a late hand-over queues no second job")
	require.Zero(t, b.jobs(t, done.ID))

	v = b.runJob(t, v.ID)
	require.Equal(t, orders.Success, v.Status)
	require.NotEmpty(t, v.Codes)
}

func TestSagaWithTheVoucherProvider(t *testing.T) {
	t.Parallel()
	b := setupSaga(t, time.Hour)
	start := b.balance(t)

	// An ordinary brand issues at once: SUCCESS in the answer, with codes.
	v, err := b.buy(t, "AMAZON")
	require.NoError(t, err)
	require.Equal(t, orders.Success, v.Status)
	require.NotEmpty(t, v.Codes)
	require.NotEmpty(t, v.Codes[0].Code)
	require.Equal(t, start-v.CoinsSpent, b.balance(t))
	require.Equal(t, b.balance(t), v.Balance)
	require.Zero(t, b.jobs(t, v.ID), "an order final within the purchase's wait needs no job")
	spent := v.CoinsSpent

	// Refused: FAILED in the answer, coins back.
	v, err = b.buy(t, "SANDBOX_FAIL")
	require.NoError(t, err)
	require.Equal(t, orders.Failed, v.Status)
	require.NotNil(t, v.RefundTxID)
	require.Equal(t, start-spent, b.balance(t), "a refused order costs nothing")
	require.Zero(t, b.jobs(t, v.ID), "an order final within the purchase's wait needs no job")

	// Slow: TIMEOUT in the answer, then SUCCESS through the job.
	v, err = b.buy(t, "SANDBOX_SLOW")
	require.NoError(t, err)
	require.Equal(t, orders.Timeout, v.Status)
	require.Equal(t, 1, b.jobs(t, v.ID), "an order unfinished after the purchase's wait keeps its job")
	v = b.runJob(t, v.ID)
	require.Equal(t, orders.Success, v.Status)
	require.NotEmpty(t, v.Codes)
	spent += v.CoinsSpent

	// Slow then refused: TIMEOUT, then FAILED and refunded.
	v, err = b.buy(t, "SANDBOX_SLOW_FAIL")
	require.NoError(t, err)
	require.Equal(t, orders.Timeout, v.Status)
	v = b.runJob(t, v.ID)
	require.Equal(t, orders.Failed, v.Status)
	require.Equal(t, start-spent, b.balance(t))

	// No stock: refused before any coin moves.
	_, err = b.buy(t, "SANDBOX_NO_STOCK")
	require.ErrorIs(t, err, orders.ErrOutOfStock)
	require.Equal(t, start-spent, b.balance(t))

	// The provider issued each order once: one provider order per reference.
	seen := map[string]int{}
	for _, o := range b.fake.Orders() {
		seen[o.ExternalRefID]++
	}
	for ref, n := range seen {
		require.Equal(t, 1, n, "reference %s placed as %d orders", ref, n)
	}
	// A job run again on a final order changes nothing.
	next, err := b.m.Orders.Fulfil(context.Background(), v.ID)
	require.NoError(t, err)
	require.Zero(t, next)
	require.Equal(t, start-spent, b.balance(t))
}

// Past its deadline an order the provider holds is not refunded on the deadline alone: through
// an outage past the deadline it stays TIMEOUT and is asked again, and the card the provider
// issued late is delivered, the coins spent once.
func TestOrdersLateAreDeliveredNotRefunded(t *testing.T) {
	t.Parallel()
	b := setupSaga(t, time.Millisecond)
	start := b.balance(t)
	v, err := b.buy(t, "SANDBOX_SLOW")
	require.NoError(t, err)
	require.Equal(t, orders.Timeout, v.Status, "pending at the provider past the deadline")
	require.Equal(t, start-v.CoinsSpent, b.balance(t))
	require.Eventually(t, func() bool { return len(b.fake.Orders()) == 1 }, 10*time.Second, 5*time.Millisecond,
		"the provider holds the order before the outage begins")

	b.fake.SetBehaviour(fakevouchers.Behaviour{Status: 503})
	next, err := b.m.Orders.Fulfil(context.Background(), v.ID)
	require.NoError(t, err)
	require.Positive(t, next, "asked again after the outage")
	o, err := b.m.Orders.Get(context.Background(), v.ID)
	require.NoError(t, err)
	require.Equal(t, orders.Timeout, o.Status, "no answer past the deadline refunds nothing")
	require.Equal(t, start-v.CoinsSpent, b.balance(t))

	b.fake.SetBehaviour(fakevouchers.Behaviour{})
	done := b.runJob(t, v.ID)
	require.Equal(t, orders.Success, done.Status)
	require.Len(t, done.Codes, 1)
	require.Equal(t, b.fake.Orders()[0].Rewards[0].Code, done.Codes[0].Code, "the card the provider issued")
	require.Equal(t, start-v.CoinsSpent, b.balance(t), "the coins are spent once, not refunded")
	require.Equal(t, map[string]int{orders.ReasonPurchaseDebit: 1}, b.movements(t, v.ID))
}

// An order the provider refuses after its deadline is refunded once, when the provider says so.
func TestOrdersLateAreRefundedOnceRefused(t *testing.T) {
	t.Parallel()
	b := setupSaga(t, time.Millisecond)
	start := b.balance(t)
	v, err := b.buy(t, "SANDBOX_SLOW_FAIL")
	require.NoError(t, err)
	require.Equal(t, orders.Timeout, v.Status, "pending at the provider past the deadline")
	// The purchase answers TIMEOUT while its send may still be on the way (the deadline here is
	// 1 ms): the provider must hold the order before the job asks, or it is one never received.
	require.Eventually(t, func() bool { return len(b.fake.Orders()) == 1 }, 10*time.Second, 5*time.Millisecond)
	done := b.runJob(t, v.ID)
	require.Equal(t, orders.Failed, done.Status)
	require.Equal(t, "refused by the voucher provider (SANDBOX_SLOW_FAIL)", done.FailureReason)
	require.Equal(t, start, b.balance(t), "the coins are back")
	next, err := b.m.Orders.Fulfil(context.Background(), v.ID)
	require.NoError(t, err)
	require.Zero(t, next)
	require.Equal(t, map[string]int{orders.ReasonPurchaseDebit: 1, orders.ReasonRefundCredit: 1}, b.movements(t, v.ID), "refunded once")
	require.Equal(t, start, b.balance(t))
}

// An order a day past its deadline without a final answer waits for an operator: the recovery
// queues no job for it (its job ended on purpose; another would only alert again), and /metrics
// counts it. One less late is still recovered.
func TestOrdersAwaitingAnOperatorAreNotRecovered(t *testing.T) {
	t.Parallel()
	b := setupSaga(t, time.Hour)
	ctx := context.Background()
	v, err := b.buy(t, "SANDBOX_SLOW")
	require.NoError(t, err)
	require.Equal(t, orders.Timeout, v.Status)
	_, err = b.pool.Exec(ctx, `DELETE FROM river_job WHERE kind = 'fulfil_order' AND args->>'order_id' = $1`, v.ID.String())
	require.NoError(t, err)

	late := func(by time.Duration) {
		_, err := b.pool.Exec(ctx, `UPDATE orders SET deadline_at = now() - make_interval(secs => $2) WHERE id = $1`, v.ID, by.Seconds())
		require.NoError(t, err)
	}
	late(orders.GiveUpAfter + time.Minute)
	n, err := b.queue.RecoverOrders(ctx, 0)
	require.NoError(t, err)
	require.Zero(t, n, "an order awaiting an operator gets no job")
	waiting, err := b.queue.OrdersAwaitingOperator(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(1), waiting)

	late(orders.GiveUpAfter - time.Minute)
	n, err = b.queue.RecoverOrders(ctx, 0)
	require.NoError(t, err)
	require.Equal(t, 1, n, "a late order still asked gets its job back")
	waiting, err = b.queue.OrdersAwaitingOperator(ctx)
	require.NoError(t, err)
	require.Zero(t, waiting)
}

// movements counts the journal entries of an order by reason.
func (b sagaBundle) movements(t *testing.T, orderID uuid.UUID) map[string]int {
	t.Helper()
	list, _, err := b.m.Coins.Transactions(context.Background(), b.player.ID, 100, 0)
	require.NoError(t, err)
	out := map[string]int{}
	for _, tx := range list {
		if tx.ReferenceID == orderID.String() {
			out[tx.Reason]++
		}
	}
	return out
}
