package postgres_test

import (
	"context"
	"errors"
	"os"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/postgres"
	"github.com/rewardsco/rewards/adapters/postgres/pgtest"
	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/idempotency"
	"github.com/rewardsco/rewards/core/players"
	"github.com/rewardsco/rewards/core/store"
	"github.com/rewardsco/rewards/core/studio"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

type ledgerBundle struct {
	pool    *pgxpool.Pool
	coins   *coins.Service
	store   store.Of[coins.Repo]
	caller  studio.Caller
	coin    coins.Coin
	player  players.Player
	players *players.Service
}

func setupLedger(t *testing.T) ledgerBundle {
	t.Helper()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	database := postgres.NewDB(pool)
	games := postgres.NewStudioStore(database)
	keeper := idempotency.NewKeeper(database, postgres.NewIdempotencyStore(database))
	studios := studio.NewService(games, newAuditLog(database))
	coinStore := postgres.NewCoinsStore(database, nil)
	coinSvc := coins.NewService(database, coinStore, games, keeper)
	playerSvc := players.NewService(database, postgres.NewPlayersStore(database), games, players.Config{})
	s, err := studios.CreateStudio(ctx, "Pixel Forge")
	require.NoError(t, err)
	g, err := studios.CreateGame(ctx, studio.Game{StudioID: s.ID, Name: "Tower Tactics"})
	require.NoError(t, err)
	c, err := coinSvc.CreateCoin(ctx, coins.Coin{GameID: g.ID, Name: "Gems", ImageURL: "https://cdn.example.com/gem.png"})
	require.NoError(t, err)
	caller := studio.Caller{GameID: g.ID, StudioID: s.ID, Environment: studio.Test}
	p, err := playerSvc.CreateWithUUID(ctx, caller, "player-1")
	require.NoError(t, err)
	return ledgerBundle{pool: pool, coins: coinSvc, store: coinStore, caller: caller, coin: c, player: p.Player, players: playerSvc}
}

func (b ledgerBundle) movement(amount int64) coins.Movement {
	return coins.Movement{GameID: b.caller.GameID, Environment: b.caller.Environment, PlayerID: b.player.ID,
		UserUUID: b.player.StudioRef(), CoinID: b.coin.ID, Amount: amount}
}

// requireJournalMatchesBalance checks the ledger invariant: the journal sums to the balance,
// and there is one coin event per journal entry.
func (b ledgerBundle) requireJournalMatchesBalance(t *testing.T) int64 {
	t.Helper()
	var balance, journal, entries, events int64
	require.NoError(t, b.pool.QueryRow(context.Background(), `
		SELECT (SELECT coalesce(sum(balance), 0) FROM balances WHERE player_id = $1),
		       (SELECT coalesce(sum(CASE type WHEN 'CREDIT' THEN amount ELSE -amount END), 0) FROM coin_transactions WHERE player_id = $1),
		       (SELECT count(*) FROM coin_transactions WHERE player_id = $1),
		       (SELECT count(*) FROM coin_events WHERE player_id = $1)`, b.player.ID).Scan(&balance, &journal, &entries, &events))
	require.Equal(t, balance, journal, "journal must sum to the balance")
	require.Equal(t, entries, events, "one coin event per journal entry")
	return balance
}

func TestConcurrentDeductsNeverOverdraw(t *testing.T) {
	t.Parallel()
	b := setupLedger(t)
	ctx := context.Background()
	_, _, err := b.coins.Distribute(ctx, b.movement(100))
	require.NoError(t, err)

	// 150 concurrent deducts of 1 against a balance of 100: exactly 100 succeed.
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok, insufficient := 0, 0
	for i := 0; i < 150; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, err := b.coins.Deduct(ctx, b.movement(1))
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				ok++
			case errors.Is(err, coins.ErrInsufficientBalance):
				insufficient++
			default:
				t.Errorf("unexpected error: %v", err)
			}
		}()
	}
	wg.Wait()
	require.Equal(t, 100, ok)
	require.Equal(t, 50, insufficient)
	require.Equal(t, int64(0), b.requireJournalMatchesBalance(t))
}

func TestConcurrentSameIdempotencyKeyMovesCoinsOnce(t *testing.T) {
	t.Parallel()
	b := setupLedger(t)
	ctx := context.Background()
	m := b.movement(25)
	m.IdempotencyKey = "order-42"

	var wg sync.WaitGroup
	results := make(chan error, 20)
	txIDs := make(chan string, 20)
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tx, _, err := b.coins.Distribute(ctx, m)
			if err == nil {
				txIDs <- tx.ID.String()
			}
			results <- err
		}()
	}
	wg.Wait()
	close(results)
	close(txIDs)
	for err := range results {
		if err != nil {
			require.ErrorIs(t, err, idempotency.ErrInProgress)
		}
	}
	distinct := map[string]bool{}
	for id := range txIDs {
		distinct[id] = true
	}
	require.Len(t, distinct, 1, "every success must be the same transaction")
	require.Equal(t, int64(25), b.requireJournalMatchesBalance(t))

	// After the first finished: the same request replays, a different body is refused.
	tx, replayed, err := b.coins.Distribute(ctx, m)
	require.NoError(t, err)
	require.True(t, replayed)
	require.True(t, distinct[tx.ID.String()])
	other := m
	other.Amount = 26
	_, _, err = b.coins.Distribute(ctx, other)
	require.ErrorIs(t, err, idempotency.ErrKeyReused)
	require.Equal(t, int64(25), b.requireJournalMatchesBalance(t))
}

func TestRefusedDeductIsReplayedUnderItsKey(t *testing.T) {
	t.Parallel()
	b := setupLedger(t)
	ctx := context.Background()
	m := b.movement(5)
	m.IdempotencyKey = "deduct-1"
	_, replayed, err := b.coins.Deduct(ctx, m)
	require.ErrorIs(t, err, coins.ErrInsufficientBalance)
	require.False(t, replayed)
	_, _, err = b.coins.Distribute(ctx, b.movement(10))
	require.NoError(t, err)
	_, replayed, err = b.coins.Deduct(ctx, m)
	require.ErrorIs(t, err, coins.ErrInsufficientBalance, "the first outcome is replayed")
	require.True(t, replayed)
	require.Equal(t, int64(10), b.requireJournalMatchesBalance(t))
}

func TestJournalIsAppendOnlyAndBalanceCannotGoNegative(t *testing.T) {
	t.Parallel()
	b := setupLedger(t)
	ctx := context.Background()
	_, _, err := b.coins.Distribute(ctx, b.movement(3))
	require.NoError(t, err)
	_, err = b.pool.Exec(ctx, `UPDATE coin_transactions SET amount = 1000`)
	require.ErrorContains(t, err, "append-only")
	_, err = b.pool.Exec(ctx, `DELETE FROM coin_transactions`)
	require.ErrorContains(t, err, "append-only")
	_, err = b.pool.Exec(ctx, `UPDATE balances SET balance = -1, lifetime_spent = lifetime_earned + 1`)
	require.ErrorContains(t, err, "check constraint")
}

// A journal entry's coin is its game's and its player is of its game and environment (migration
// 00025's keys, two checks where three checked less): an entry that says otherwise is refused,
// and so is a movement that names the player in the other environment, which changes nothing.
func TestJournalEntriesKeepToTheirGameAndEnvironment(t *testing.T) {
	t.Parallel()
	b := setupLedger(t)
	ctx := context.Background()
	// Another game of the same studio, in the same database, with its coin and player.
	studios := studio.NewService(postgres.NewStudioStore(postgres.NewDB(b.pool)), newAuditLog(postgres.NewDB(b.pool)))
	g, err := studios.CreateGame(ctx, studio.Game{StudioID: b.caller.StudioID, Name: "Castle Clash"})
	require.NoError(t, err)
	otherCoin, err := b.coins.CreateCoin(ctx, coins.Coin{GameID: g.ID, Name: "Gold", ImageURL: "https://cdn.example.com/gold.png"})
	require.NoError(t, err)
	otherPlayer, err := b.players.CreateWithUUID(ctx, studio.Caller{GameID: g.ID, StudioID: b.caller.StudioID, Environment: studio.Test}, "player-1")
	require.NoError(t, err)
	_, _, err = b.coins.Distribute(ctx, b.movement(5))
	require.NoError(t, err)

	insert := `INSERT INTO coin_transactions (game_id, environment, player_id, coin_id, type, amount, balance_after, reason)
		VALUES ($1, $2, $3, $4, 'CREDIT', 1, 1, 'GAME_CREDIT')`
	_, err = b.pool.Exec(ctx, insert, b.caller.GameID, "test", b.player.ID, otherCoin.ID)
	require.ErrorContains(t, err, "coin_transactions_coin_game_fkey", "another game's coin")
	_, err = b.pool.Exec(ctx, insert, b.caller.GameID, "live", b.player.ID, b.coin.ID)
	require.ErrorContains(t, err, "coin_transactions_player_game_fkey", "the player in the other environment")
	_, err = b.pool.Exec(ctx, insert, b.caller.GameID, "test", otherPlayer.Player.ID, b.coin.ID)
	require.ErrorContains(t, err, "coin_transactions_player_game_fkey", "another game's player")

	m := b.movement(7)
	m.Environment = studio.Live
	_, _, err = b.coins.Distribute(ctx, m)
	require.Error(t, err)
	require.EqualValues(t, 5, b.requireJournalMatchesBalance(t), "the refused movement changed nothing")
}

// A request that stalls past the stale limit loses its claim: the retry that took the key over
// is the only one whose outcome can be stored, and the stalled one can neither complete nor
// release the key.
func TestStaleIdempotencyClaimIsTakenOverSafely(t *testing.T) {
	t.Parallel()
	b := setupLedger(t)
	ctx := context.Background()
	repo := postgres.NewIdempotencyStore(postgres.NewDB(b.pool)).Repo()
	key := idempotency.Key{GameID: b.caller.GameID, Environment: "test", Scope: "player:x", Key: "k"}
	hash := []byte("fingerprint of the body")
	claim := func() (idempotency.Claim, idempotency.Record, bool) {
		c := idempotency.Claim{Key: key, Token: uuid.New()}
		rec, claimed, err := repo.ClaimKey(ctx, c, hash, idempotency.StaleAfter)
		require.NoError(t, err)
		return c, rec, claimed
	}

	stalled, _, claimed := claim()
	require.True(t, claimed)
	_, rec, claimed := claim()
	require.False(t, claimed, "a fresh claim is not taken over")
	require.False(t, rec.Done)

	// Three minutes later (by the database's clock) the first holder has gone quiet: a retry
	// takes over.
	_, err := b.pool.Exec(ctx, `UPDATE idempotency_keys SET locked_at = locked_at - interval '3 minutes'`)
	require.NoError(t, err)
	retry, _, claimed := claim()
	require.True(t, claimed)
	require.NotEqual(t, stalled.Token, retry.Token)

	require.ErrorIs(t, repo.CompleteKey(ctx, stalled, []byte(`{"from":"stalled"}`), ""), idempotency.ErrClaimLost)
	require.NoError(t, repo.ReleaseKey(ctx, stalled))
	require.NoError(t, repo.CompleteKey(ctx, retry, []byte(`{"from":"retry"}`), ""))
	_, rec, claimed = claim()
	require.False(t, claimed)
	require.True(t, rec.Done)
	require.JSONEq(t, `{"from":"retry"}`, string(rec.Result))
}

// A movement queued in a transaction (queueMovement, as orders' Charge makes it) travels with
// the transaction's next statement, one round trip for both, and its outcome is what
// ApplyMovement answers: the journal entry with the balance after it, or ErrInsufficientBalance,
// which rolls the transaction back.
// Alone, the outcome sends it. Not parallel: it counts round trips.
func TestQueuedMovementTravelsWithTheNextStatement(t *testing.T) {
	ctx := context.Background()
	b := setupLedger(t)
	cfg := b.pool.Config().Copy()
	cfg.MaxConns = 1
	cfg.ConnConfig.Tracer = postgres.RoundTripCounter{}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	database := postgres.NewDB(pool)
	coinStore := postgres.NewCoinsStore(database, nil)
	_, _, err = b.coins.Distribute(ctx, b.movement(1000))
	require.NoError(t, err)

	balance := int64(1000)
	require.EqualValues(t, 2, trips(t, func() {
		var out coins.Transaction
		require.NoError(t, database.InTx(ctx, func(tx store.Tx) error {
			outcome := postgres.QueueMovement(ctx, coinStore.WithTx(tx), b.movement(30), coins.Debit, coins.EventDebited)
			var one int
			if err := tx.(*postgres.Tx).PgxTx().QueryRow(ctx, `SELECT 1`).Scan(&one); err != nil {
				return err
			}
			out, err = outcome(ctx)
			return err
		}))
		balance -= 30
		require.Equal(t, balance, out.BalanceAfter)
		require.Equal(t, coins.Debit, out.Type)
		require.EqualValues(t, 30, out.Amount)
		require.NotEqual(t, uuid.Nil, out.ID)
		require.False(t, out.CreatedAt.IsZero())
	}), "BEGIN, the debit and the next statement; COMMIT")

	err = database.InTx(ctx, func(tx store.Tx) error {
		outcome := postgres.QueueMovement(ctx, coinStore.WithTx(tx), b.movement(balance+1), coins.Debit, coins.EventDebited)
		if _, err := tx.(*postgres.Tx).PgxTx().Exec(ctx, `SELECT 1`); err != nil {
			return err
		}
		_, err := outcome(ctx)
		return err
	})
	require.ErrorIs(t, err, coins.ErrInsufficientBalance)

	var alone coins.Transaction
	require.NoError(t, database.InTx(ctx, func(tx store.Tx) error {
		alone, err = postgres.QueueMovement(ctx, coinStore.WithTx(tx), b.movement(5), coins.Debit, coins.EventDebited)(ctx)
		return err
	}))
	require.Equal(t, balance-5, alone.BalanceAfter, "sent by its outcome when nothing else did")
	require.Equal(t, balance-5, b.requireJournalMatchesBalance(t))
}
