package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/postgres"
	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/partner"
	"github.com/rewardsco/rewards/core/store"
	"github.com/rewardsco/rewards/core/studio"
)

// walletBundle is a partner's wallet and what places WALLET orders on it: the partner module's
// port (partner.WalletOrders), whose orders insert the order (a statement whose answer it
// reads) and debit the wallet with their commit, in the wallet's turns.
type walletBundle struct {
	ordersBundle
	db *postgres.DB
	// commits counts the COMMITs b.db sent.
	commits *commitCounter
	partner store.Of[partner.Repo]
	wallet  partner.WalletOrders
	reward  catalogue.Reward
}

func setupWallet(t *testing.T, balance int64) walletBundle {
	t.Helper()
	b := walletBundle{ordersBundle: setupOrders(t), commits: &commitCounter{}}
	cfg := b.pool.Config().Copy()
	cfg.ConnConfig.Tracer = sentSQL(b.commits.count)
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	b.db = postgres.NewDB(pool)
	b.partner = postgres.NewPartnerStore(b.db)
	b.wallet = postgres.NewPartnerWalletOrders(b.db)
	b.reward = b.coupon(t, 10, 0)
	require.NoError(t, b.partner.InTx(context.Background(), func(r partner.Repo) error {
		bal, err := r.LockWallet(context.Background(), b.game.ID, studio.Test)
		if err != nil {
			return err
		}
		_, err = r.Apply(context.Background(), partner.Entry{GameID: b.game.ID, Environment: studio.Test, Kind: partner.Credit,
			Amount: money.Amount(balance), BalanceAfter: bal + money.Amount(balance), Reference: "seed"})
		return err
	}))
	return b
}

// commitCounter counts the COMMITs sent, alone or in a batch (its count is a sentSQL).
type commitCounter struct{ n atomic.Int64 }

func (c *commitCounter) count(sql string) {
	if strings.EqualFold(strings.TrimSpace(sql), "commit") {
		c.n.Add(1)
	}
}

// place places a WALLET order of amount with clientOrderID, through the partner module's port.
func (b walletBundle) place(ctx context.Context, clientOrderID string, amount int64) (uuid.UUID, error) {
	o := b.order(clientOrderID, amount)
	_, err := b.wallet.PlaceWalletOrder(ctx, o, "")
	return o.ID, err
}

// order is a new WALLET order of the wallet costing amount.
func (b walletBundle) order(clientOrderID string, amount int64) orders.Order {
	return orders.Order{ID: uuid.New(), Channel: orders.Partner, GameID: b.game.ID, Environment: studio.Test, UserRef: "u",
		RewardID: b.reward.ID, RewardType: catalogue.GiftCard, Denomination: money.Amount(amount), Quantity: 1,
		FaceValue: money.Amount(amount), ProviderProduct: "AMZ", Status: orders.Initiated, DeadlineAt: time.Now().Add(time.Hour),
		Partner: &orders.Terms{ClientOrderID: clientOrderID, Customer: orders.Customer{Ref: "u"}, Settlement: orders.Wallet,
			Amount: money.Amount(amount), Currency: "INR", BrandCode: "AMAZON", BrandName: "Amazon",
			Payment: orders.Payment{Status: orders.NotRequired}}}
}

// placeAsync is place in a goroutine; the channel has its outcome.
func (b walletBundle) placeAsync(ctx context.Context, clientOrderID string, amount int64) chan placed {
	ch := make(chan placed, 1)
	go func() {
		id, err := b.place(ctx, clientOrderID, amount)
		ch <- placed{id: id, amount: amount, err: err}
	}()
	return ch
}

type placed struct {
	id     uuid.UUID
	amount int64
	err    error
}

// holdWallet locks the wallet row in a transaction of its own until the returned function is
// called, so that the orders sent meanwhile queue behind the first, which waits at its commit.
func (b walletBundle) holdWallet(t *testing.T) (release func()) {
	t.Helper()
	ctx := context.Background()
	tx, err := b.pool.Begin(ctx)
	require.NoError(t, err)
	_, err = tx.Exec(ctx, `SELECT 1 FROM partner_wallets WHERE game_id = $1 AND environment = 'test' FOR UPDATE`, b.game.ID)
	require.NoError(t, err)
	var once sync.Once
	release = func() { once.Do(func() { require.NoError(t, tx.Rollback(ctx)) }) }
	t.Cleanup(release)
	return release
}

// waitLine waits until an order of the wallet runs and queued wait behind it.
func (b walletBundle) waitLine(t *testing.T, queued int) {
	t.Helper()
	require.Eventually(t, func() bool {
		running, n := postgres.WalletLine(b.db, b.game.ID, studio.Test)
		return running && n == queued
	}, 10*time.Second, time.Millisecond, "want a running order and %d queued", queued)
}

// requireWalletAddsUp checks the wallet's ledger: its journal, in the order it was made, is one
// sequence of balances from 0 that ends at the balance; every debit is of an order that exists,
// once; the orders of the wallet are exactly those with a debit. It returns the balance and
// each debited order's amount.
func (b walletBundle) requireWalletAddsUp(t *testing.T) (int64, map[uuid.UUID]int64) {
	t.Helper()
	ctx := context.Background()
	rows, err := b.pool.Query(ctx, `SELECT kind, amount, balance_after, order_id FROM partner_wallet_entries
		WHERE game_id = $1 AND environment = 'test' ORDER BY id`, b.game.ID)
	require.NoError(t, err)
	type entry struct {
		kind         string
		amount, next int64
		order        *uuid.UUID
	}
	entries, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (entry, error) {
		var e entry
		return e, r.Scan(&e.kind, &e.amount, &e.next, &e.order)
	})
	require.NoError(t, err)
	var balance int64
	debits := map[uuid.UUID]int64{}
	for i, e := range entries {
		balance += e.amount
		require.Equal(t, balance, e.next, "entry %d of %d (%s %d) breaks the sequence of balances", i, len(entries), e.kind, e.amount)
		require.GreaterOrEqual(t, e.next, int64(0))
		if e.kind == "DEBIT" {
			require.NotNil(t, e.order)
			_, twice := debits[*e.order]
			require.False(t, twice, "order %s debited twice", *e.order)
			debits[*e.order] = -e.amount
		}
	}
	var stored int64
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT balance FROM partner_wallets WHERE game_id = $1 AND environment = 'test'`, b.game.ID).Scan(&stored))
	require.Equal(t, balance, stored, "the journal must sum to the balance")
	rows, err = b.pool.Query(ctx, `SELECT id, amount FROM orders WHERE game_id = $1 AND channel = 'PARTNER'`, b.game.ID)
	require.NoError(t, err)
	ords, err := pgx.CollectRows(rows, pgx.RowToStructByPos[struct {
		ID     uuid.UUID
		Amount int64
	}])
	require.NoError(t, err)
	require.Len(t, ords, len(debits), "one order per debit, no order without its debit")
	for _, o := range ords {
		require.Equal(t, o.Amount, debits[o.ID], "order %s", o.ID)
	}
	return balance, debits
}

// TestWalletOrdersAreBatchedEachWithItsOwnOutcome: 48 clients place 4 WALLET orders each on one
// wallet at once, more than it holds. The orders that queue behind a running one are placed in
// turns of several in one transaction (the counters show fewer transactions than orders), and
// still each order has its own outcome: a placed order has its one debit with its own balance
// after, in one unbroken sequence of balances, and an order refused for the balance (RWWAL)
// leaves neither order nor entry.
func TestWalletOrdersAreBatchedEachWithItsOwnOutcome(t *testing.T) {
	t.Parallel()
	b := setupWallet(t, 3000)
	ctx := context.Background()

	// The wallet is held while the clients start, so that a queue forms however the goroutines
	// are scheduled; then they run freely.
	release := b.holdWallet(t)
	before := b.commits.n.Load()
	const clients, each = 48, 4
	var (
		wg           sync.WaitGroup
		mu           sync.Mutex
		done         = map[uuid.UUID]int64{}
		insufficient int
	)
	for g := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range each {
				amount := int64(1 + (g*13+k*7)%40)
				id, err := b.place(ctx, fmt.Sprintf("c-%d-%d", g, k), amount)
				mu.Lock()
				switch {
				case err == nil:
					done[id] = amount
				case errors.Is(err, partner.ErrInsufficientBalance):
					insufficient++
				default:
					t.Errorf("order: %v", err)
				}
				mu.Unlock()
			}
		}()
	}
	b.waitLine(t, clients-1)
	release()
	wg.Wait()

	require.Equal(t, clients*each, len(done)+insufficient)
	require.Positive(t, insufficient, "some orders must not fit")
	balance, debits := b.requireWalletAddsUp(t)
	require.Equal(t, done, debits, "the orders answered placed are exactly the debited ones, each of its amount")
	var spent int64
	for _, a := range done {
		spent += a
	}
	require.Equal(t, 3000-spent, balance)

	batches, batched, failed, short := postgres.WalletTurnCounts(b.db)
	t.Logf("%d turns of %d orders in all (%d left out for the balance); %d orders placed, %d refused", batches, batched, short, len(done), insufficient)
	require.Positive(t, batches, "orders that waited must have been placed in turns")
	require.GreaterOrEqual(t, batched, 2*batches)
	commits := b.commits.n.Load() - before
	t.Logf("%d COMMITs for %d orders", commits, clients*each)
	require.Less(t, commits, int64(clients*each)*2/3, "far fewer transactions than orders")
	// An order a turn's balance did not cover is placed alone, and may debit the wallet while
	// the next turn runs: that turn's debit may then no longer fit, and it is placed again
	// order by order (its outcomes checked above). Most turns commit.
	require.Less(t, failed, batches)
}

// TestWalletShortMidTurnPlacesExactlyTheAffordableOrders: the wallet covers only some orders of
// a turn. The turn places those the balance covers, in arrival order, and each order it does not
// cover fails alone with RWWAL (ErrInsufficientBalance), leaving nothing; the others are placed
// once each.
func TestWalletShortMidTurnPlacesExactlyTheAffordableOrders(t *testing.T) {
	t.Parallel()
	b := setupWallet(t, 100)
	ctx := context.Background()

	release := b.holdWallet(t)
	first := b.placeAsync(ctx, "first", 10) // runs alone, held at its commit
	b.waitLine(t, 0)
	amounts := []int64{30, 50, 40, 20, 5}
	results := make([]chan placed, len(amounts))
	for i, a := range amounts {
		results[i] = b.placeAsync(ctx, fmt.Sprintf("q-%d", i), a)
		b.waitLine(t, i+1)
	}
	release()

	require.NoError(t, (<-first).err)
	// After the first (10), the wallet holds 90: 30 and 50 fit, 40 and 20 do not, 5 does.
	want := map[int64]bool{30: true, 50: true, 40: false, 20: false, 5: true}
	answered := map[uuid.UUID]int64{}
	for i, ch := range results {
		r := <-ch
		if want[amounts[i]] {
			require.NoError(t, r.err, "order of %d", amounts[i])
			answered[r.id] = r.amount
		} else {
			require.ErrorIs(t, r.err, partner.ErrInsufficientBalance, "order of %d", amounts[i])
		}
	}
	balance, debits := b.requireWalletAddsUp(t)
	require.Equal(t, int64(5), balance)
	require.Len(t, debits, 4)
	for id, a := range answered {
		require.Equal(t, a, debits[id])
	}
	batches, batched, failed, short := postgres.WalletTurnCounts(b.db)
	require.Equal(t, [4]int64{1, 5, 0, 2}, [4]int64{batches, batched, failed, short},
		"one turn of the five, which committed, two of them left out for the balance")
}

// TestWalletTurnRefusedLosesAndDuplicatesNothing: a turn with two orders of one clientOrderId
// (the second's insert breaks the unique index, an error PostgreSQL raises inside the turn's
// transaction) commits nothing; then each of its orders is placed by itself as it would have
// been without the queue: the others once each, one of the two with the same clientOrderId, and
// the other gets ErrClientOrderTaken.
func TestWalletTurnRefusedLosesAndDuplicatesNothing(t *testing.T) {
	t.Parallel()
	b := setupWallet(t, 1000)
	ctx := context.Background()

	release := b.holdWallet(t)
	first := b.placeAsync(ctx, "first", 1)
	b.waitLine(t, 0)
	ids := []string{"a", "twice", "b", "twice", "c"}
	results := make([]chan placed, len(ids))
	for i, id := range ids {
		results[i] = b.placeAsync(ctx, id, int64(10*(i+1)))
		b.waitLine(t, i+1)
	}
	release()

	require.NoError(t, (<-first).err)
	answered := map[uuid.UUID]int64{}
	taken := 0
	for i, ch := range results {
		r := <-ch
		switch {
		case r.err == nil:
			answered[r.id] = r.amount
		case ids[i] == "twice" && errors.Is(r.err, orders.ErrClientOrderTaken):
			taken++
		default:
			t.Fatalf("order %s: %v", ids[i], r.err)
		}
	}
	require.Equal(t, 1, taken, "one of the two orders of one clientOrderId is refused")
	require.Len(t, answered, 4)
	balance, debits := b.requireWalletAddsUp(t)
	require.Len(t, debits, 5, "the first and the four answered placed, each once")
	var spent int64 = 1
	for id, a := range answered {
		require.Equal(t, a, debits[id])
		spent += a
	}
	require.Equal(t, 1000-spent, balance)
	batches, batched, failed, _ := postgres.WalletTurnCounts(b.db)
	require.Equal(t, [3]int64{1, 5, 1}, [3]int64{batches, batched, failed}, "one turn of the five, which did not commit")
}

// TestWalletWaiterCancelledBeforeItsTurnLeavesNothing: a queued order whose context ends before
// its turn leaves the queue at once with the context's error and is never placed; one whose
// context ends once its turn is taken gets the turn's true outcome (it committed).
func TestWalletWaiterCancelledBeforeItsTurnLeavesNothing(t *testing.T) {
	t.Parallel()
	b := setupWallet(t, 1000)
	ctx := context.Background()

	// Cancelled while waiting: out at once, while the running order is still held.
	release := b.holdWallet(t)
	first := b.placeAsync(ctx, "first", 1)
	b.waitLine(t, 0)
	cctx, cancel := context.WithCancel(ctx)
	cancelled := b.placeAsync(cctx, "cancelled", 100)
	b.waitLine(t, 1)
	cancel()
	select {
	case r := <-cancelled:
		require.ErrorIs(t, r.err, context.Canceled)
	case <-time.After(5 * time.Second):
		t.Fatal("a cancelled waiter must leave the queue at once")
	}
	b.waitLine(t, 0)
	release()
	require.NoError(t, (<-first).err)
	balance, debits := b.requireWalletAddsUp(t)
	require.Equal(t, int64(999), balance)
	require.Len(t, debits, 1)

	// Cancelled once its turn is taken: the turn runs and the waiter hears it committed.
	cctx, cancel = context.WithCancel(ctx)
	defer cancel()
	postgres.SetWalletTurnHook(b.db, func(int) { cancel() })
	release = b.holdWallet(t)
	first = b.placeAsync(ctx, "second", 1)
	b.waitLine(t, 0)
	a := b.placeAsync(cctx, "taken", 10)
	b.waitLine(t, 1)
	c := b.placeAsync(ctx, "third", 20)
	b.waitLine(t, 2)
	release()
	require.NoError(t, (<-first).err)
	require.NoError(t, (<-a).err, "the turn committed, so its cancelled waiter must hear so")
	require.NoError(t, (<-c).err)
	balance, debits = b.requireWalletAddsUp(t)
	require.Equal(t, int64(999-1-10-20), balance)
	require.Len(t, debits, 4)
	batches, _, failed, _ := postgres.WalletTurnCounts(b.db)
	require.Equal(t, int64(1), batches)
	require.Zero(t, failed)
}

// A WALLET order that finds its wallet idle makes 2 round trips: BEGIN with the order's insert,
// whose answer it reads, then its debit with the COMMIT. An order with a quote reads whether
// its quote was used first, a round trip more.
func TestLoneWalletOrderRoundTrips(t *testing.T) {
	b := setupWallet(t, 1_000_000)
	cfg := b.pool.Config().Copy()
	cfg.MaxConns = 1
	cfg.ConnConfig.Tracer = postgres.RoundTripCounter{}
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	b.db = postgres.NewDB(pool)
	b.wallet = postgres.NewPartnerWalletOrders(b.db)
	n := 0
	place := func(quote bool) func() {
		return func() {
			n++
			o := b.order(fmt.Sprintf("counted-%d", n), 10)
			quoteID := ""
			if quote {
				quoteID = uuid.NewString()
			}
			_, err := b.wallet.PlaceWalletOrder(context.Background(), o, quoteID)
			require.NoError(t, err)
		}
	}
	require.EqualValues(t, 2, trips(t, place(false)))
	require.EqualValues(t, 3, trips(t, place(true)))
	b.requireWalletAddsUp(t)
}
