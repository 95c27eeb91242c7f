package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/postgres"
	"github.com/rewardsco/rewards/core/coins"
)

// holdBalance locks the player's balance row in a transaction of its own until the returned
// function is called, so that the movements sent meanwhile queue behind the first.
func (b ledgerBundle) holdBalance(t *testing.T) (release func()) {
	t.Helper()
	ctx := context.Background()
	tx, err := b.pool.Begin(ctx)
	require.NoError(t, err)
	_, err = tx.Exec(ctx, `SELECT 1 FROM balances WHERE player_id = $1 AND coin_id = $2 FOR UPDATE`, b.player.ID, b.coin.ID)
	require.NoError(t, err)
	var once sync.Once
	release = func() { once.Do(func() { require.NoError(t, tx.Rollback(ctx)) }) }
	t.Cleanup(release)
	return release
}

// waitLine waits until a movement of the player's coin runs and queued wait behind it.
func (b ledgerBundle) waitLine(t *testing.T, queued int) {
	t.Helper()
	require.Eventually(t, func() bool {
		running, n := postgres.CoinLine(b.store, b.player.ID, b.coin.ID)
		return running && n == queued
	}, 10*time.Second, time.Millisecond, "want a running movement and %d queued", queued)
}

// journalEntry is a row of coin_transactions.
type journalEntry struct {
	id           uuid.UUID
	typ          coins.TxType
	amount       int64
	balanceAfter int64
}

// requireJournalChains checks that the player's journal, in the order it was made, is one
// sequence of balances from 0, each entry's balance_after its predecessor's plus or minus its
// amount, and returns it by id.
func (b ledgerBundle) requireJournalChains(t *testing.T) map[uuid.UUID]journalEntry {
	t.Helper()
	rows, err := b.pool.Query(context.Background(), `
		SELECT id, type, amount, balance_after FROM coin_transactions
		WHERE player_id = $1 AND coin_id = $2 ORDER BY created_at, id`, b.player.ID, b.coin.ID)
	require.NoError(t, err)
	entries, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (journalEntry, error) {
		var e journalEntry
		return e, r.Scan(&e.id, &e.typ, &e.amount, &e.balanceAfter)
	})
	require.NoError(t, err)
	byID := map[uuid.UUID]journalEntry{}
	var balance int64
	for i, e := range entries {
		if e.typ == coins.Credit {
			balance += e.amount
		} else {
			balance -= e.amount
		}
		require.Equal(t, balance, e.balanceAfter, "entry %d of %d (%s %d) breaks the sequence of balances", i, len(entries), e.typ, e.amount)
		byID[e.id] = e
	}
	require.Len(t, byID, len(entries))
	return byID
}

// TestHotBalanceMovementsAreBatchedEachWithItsOwnOutcome: 64 clients credit and debit one player
// at once, debits often beyond the balance. The movements that queue behind a running one are
// batched (the counters show batches), and still every success is its own journal entry with
// its own balance after, in one unbroken sequence of balances; a refused debit leaves nothing;
// the journal sums to the balance with one coin event per entry.
func TestHotBalanceMovementsAreBatchedEachWithItsOwnOutcome(t *testing.T) {
	t.Parallel()
	b := setupLedger(t)
	ctx := context.Background()
	_, _, err := b.coins.Distribute(ctx, b.movement(1000))
	require.NoError(t, err)

	// The balance is held while the clients start, so that a queue forms however the
	// goroutines are scheduled; then they run freely.
	release := b.holdBalance(t)
	const clients, each = 64, 8
	var (
		wg           sync.WaitGroup
		mu           sync.Mutex
		done         []coins.Transaction
		insufficient int
	)
	for g := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range each {
				var tr coins.Transaction
				var err error
				if (g+k)%2 == 0 {
					tr, _, err = b.coins.Distribute(ctx, b.movement(int64(1+(g*7+k)%40)))
				} else {
					tr, _, err = b.coins.Deduct(ctx, b.movement(int64(1+(g*13+k*5)%300)))
				}
				mu.Lock()
				switch {
				case err == nil:
					done = append(done, tr)
				case errors.Is(err, coins.ErrInsufficientBalance):
					insufficient++
				default:
					t.Errorf("movement: %v", err)
				}
				mu.Unlock()
			}
		}()
	}
	b.waitLine(t, clients-1)
	release()
	wg.Wait()

	require.Equal(t, clients*each, len(done)+insufficient)
	require.Positive(t, insufficient, "some debits must not fit")
	debits := 0
	for _, tr := range done {
		if tr.Type == coins.Debit {
			debits++
		}
	}
	require.Positive(t, debits, "some debits must fit")

	balance := b.requireJournalMatchesBalance(t)
	journal := b.requireJournalChains(t)
	require.Len(t, journal, len(done)+1, "one entry per success (and the first credit), none for a refused debit")
	for _, tr := range done {
		e, ok := journal[tr.ID]
		require.True(t, ok, "transaction %s answered but not in the journal", tr.ID)
		require.Equal(t, journalEntry{id: tr.ID, typ: tr.Type, amount: tr.Amount, balanceAfter: tr.BalanceAfter}, e)
	}
	var last coins.Transaction
	for _, tr := range done {
		if tr.CreatedAt.After(last.CreatedAt) {
			last = tr
		}
	}
	require.Equal(t, balance, last.BalanceAfter, "the last movement made leaves the balance")

	batches, batched, failed := postgres.CoinBatchCounts(b.store)
	t.Logf("%d batches of %d movements in all", batches, batched)
	require.Positive(t, batches, "movements that waited must have been batched")
	require.GreaterOrEqual(t, batched, 2*batches)
	require.Zero(t, failed)
}

// TestHotBatchThatFailsLosesAndDuplicatesNothing: a batch with a movement PostgreSQL refuses
// (an amount of 0 breaks the journal's CHECK, as no API call can) commits nothing, and then each
// movement is made by itself as it would have been without the queue: the others commit once
// each, the refused debit fails alone, the bad one gets its error.
func TestHotBatchThatFailsLosesAndDuplicatesNothing(t *testing.T) {
	t.Parallel()
	b := setupLedger(t)
	ctx := context.Background()
	_, _, err := b.coins.Distribute(ctx, b.movement(100))
	require.NoError(t, err)
	repo := b.store.Repo()

	release := b.holdBalance(t)
	type result struct {
		tr  coins.Transaction
		err error
	}
	run := func(typ coins.TxType, amount int64) chan result {
		ch := make(chan result, 1)
		go func() {
			event := coins.EventCredited
			if typ == coins.Debit {
				event = coins.EventDebited
			}
			tr, err := repo.ApplyMovement(ctx, b.movement(amount), typ, event)
			ch <- result{tr, err}
		}()
		return ch
	}
	first := run(coins.Credit, 1) // runs alone, held by the lock
	b.waitLine(t, 0)
	queued := []struct {
		typ    coins.TxType
		amount int64
	}{{coins.Credit, 10}, {coins.Debit, 30}, {coins.Credit, 0}, {coins.Debit, 1000}, {coins.Credit, 5}}
	results := make([]chan result, len(queued))
	for i, q := range queued {
		results[i] = run(q.typ, q.amount)
		b.waitLine(t, i+1)
	}
	release()

	r := <-first
	require.NoError(t, r.err)
	answered := []coins.Transaction{r.tr}
	for i, ch := range results {
		r := <-ch
		switch i {
		case 2:
			require.Error(t, r.err)
			require.Contains(t, r.err.Error(), "23514", "the CHECK violation of the bad movement")
		case 3:
			require.ErrorIs(t, r.err, coins.ErrInsufficientBalance)
		default:
			require.NoError(t, r.err)
			answered = append(answered, r.tr)
		}
	}
	batches, batched, failed := postgres.CoinBatchCounts(b.store)
	require.Equal(t, [3]int64{1, 5, 1}, [3]int64{batches, batched, failed}, "one batch of the five, which failed")

	require.Equal(t, int64(100+1+10-30+5), b.requireJournalMatchesBalance(t))
	journal := b.requireJournalChains(t)
	require.Len(t, journal, 1+len(answered), "each success once, nothing else")
	for _, tr := range answered {
		require.Equal(t, tr.BalanceAfter, journal[tr.ID].balanceAfter)
	}
}

// TestHotWaiterCancelledBeforeItsTurnLeavesNothing: a queued movement whose context ends before
// its turn leaves the queue at once with the context's error and never happens; one whose
// context ends once its batch is taken gets the batch's true outcome (it committed).
func TestHotWaiterCancelledBeforeItsTurnLeavesNothing(t *testing.T) {
	t.Parallel()
	b := setupLedger(t)
	ctx := context.Background()
	_, _, err := b.coins.Distribute(ctx, b.movement(100))
	require.NoError(t, err)

	distribute := func(ctx context.Context, amount int64) chan error {
		ch := make(chan error, 1)
		go func() {
			_, _, err := b.coins.Distribute(ctx, b.movement(amount))
			ch <- err
		}()
		return ch
	}

	// Cancelled while waiting: out at once, while the running movement is still held.
	release := b.holdBalance(t)
	first := distribute(ctx, 1)
	b.waitLine(t, 0)
	cctx, cancel := context.WithCancel(ctx)
	cancelled := distribute(cctx, 1000)
	b.waitLine(t, 1)
	cancel()
	select {
	case err := <-cancelled:
		require.ErrorIs(t, err, context.Canceled)
	case <-time.After(5 * time.Second):
		t.Fatal("a cancelled waiter must leave the queue at once")
	}
	b.waitLine(t, 0)
	release()
	require.NoError(t, <-first)
	require.Equal(t, int64(101), b.requireJournalMatchesBalance(t))

	// Cancelled once its batch is taken: the batch runs and the waiter hears it committed.
	cctx, cancel = context.WithCancel(ctx)
	defer cancel()
	postgres.SetCoinBatchHook(b.store, func(int) { cancel() })
	release = b.holdBalance(t)
	first = distribute(ctx, 1)
	b.waitLine(t, 0)
	a := distribute(cctx, 10)
	b.waitLine(t, 1)
	c := distribute(ctx, 20)
	b.waitLine(t, 2)
	release()
	require.NoError(t, <-first)
	require.NoError(t, <-a, "the batch committed, so its cancelled waiter must hear so")
	require.NoError(t, <-c)
	require.Equal(t, int64(101+1+10+20), b.requireJournalMatchesBalance(t))
	require.Len(t, b.requireJournalChains(t), 5)
	batches, _, failed := postgres.CoinBatchCounts(b.store)
	require.Equal(t, int64(1), batches)
	require.Zero(t, failed)
}

// TestMovementsOfManyPlayersShareABatch: the movements of players whose balances share a line
// queue behind a running one and are made in one batch, in any order of arrival, each with its
// own outcome: every player's journal is its own unbroken sequence of balances that sums to its
// balance, each answer is its journal entry, a debit beyond its player's balance fails alone.
func TestMovementsOfManyPlayersShareABatch(t *testing.T) {
	t.Parallel()
	b := setupLedger(t)
	ctx := context.Background()
	_, _, err := b.coins.Distribute(ctx, b.movement(100))
	require.NoError(t, err)
	// Players of the first player's line, each with 50 coins.
	others := []ledgerBundle{}
	for i := 0; len(others) < 6; i++ {
		p, err := b.players.CreateWithUUID(ctx, b.caller, fmt.Sprintf("other-%d", i))
		require.NoError(t, err)
		if !postgres.SameCoinLine(b.store, b.player.ID, p.Player.ID, b.coin.ID) {
			continue
		}
		o := b
		o.player = p.Player
		_, _, err = b.coins.Distribute(ctx, o.movement(50))
		require.NoError(t, err)
		others = append(others, o)
	}

	release := b.holdBalance(t)
	first := make(chan error, 1)
	go func() {
		_, _, err := b.coins.Distribute(ctx, b.movement(1))
		first <- err
	}()
	b.waitLine(t, 0)
	type result struct {
		tr  coins.Transaction
		err error
	}
	// Each other player: a credit of 10, then a debit of 55 (fits: 50+10), then one of 1,000
	// (does not fit), queued in that order, the players interleaved.
	results := map[int][]chan result{}
	queued := 0
	for step, amount := range []int64{10, 55, 1000} {
		for i, o := range others {
			ch := make(chan result, 1)
			go func() {
				var r result
				if step == 0 {
					r.tr, _, r.err = b.coins.Distribute(ctx, o.movement(amount))
				} else {
					r.tr, _, r.err = b.coins.Deduct(ctx, o.movement(amount))
				}
				ch <- r
			}()
			results[i] = append(results[i], ch)
			queued++
			b.waitLine(t, queued)
		}
	}
	release()
	require.NoError(t, <-first)

	for i, o := range others {
		credit, debit, refused := <-results[i][0], <-results[i][1], <-results[i][2]
		require.NoError(t, credit.err)
		require.NoError(t, debit.err)
		require.ErrorIs(t, refused.err, coins.ErrInsufficientBalance)
		require.Equal(t, o.player.ID, debit.tr.PlayerID)
		require.Equal(t, int64(5), o.requireJournalMatchesBalance(t))
		journal := o.requireJournalChains(t)
		require.Len(t, journal, 3, "the first credit, the credit and the debit; nothing for the refused one")
		require.Equal(t, journalEntry{credit.tr.ID, coins.Credit, 10, 60}, journal[credit.tr.ID])
		require.Equal(t, journalEntry{debit.tr.ID, coins.Debit, 55, 5}, journal[debit.tr.ID])
		require.Equal(t, int64(60), credit.tr.BalanceAfter)
		require.Equal(t, int64(5), debit.tr.BalanceAfter)
	}
	require.Equal(t, int64(101), b.requireJournalMatchesBalance(t))
	batches, batched, failed := postgres.CoinBatchCounts(b.store)
	require.Equal(t, [3]int64{1, int64(queued), 0}, [3]int64{batches, batched, failed}, "one batch of every queued movement, committed")
}
