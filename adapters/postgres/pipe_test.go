package postgres_test

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/postgres"
	"github.com/rewardsco/rewards/adapters/postgres/pgtest"
	"github.com/rewardsco/rewards/core/idempotency"
	"github.com/rewardsco/rewards/core/store"
)

// tracedPool is a pool of one connection whose round trips postgres.RoundTrips counts; a test
// that counts must not run in parallel with another that uses one.
func tracedPool(t *testing.T) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(pgtest.URL(t))
	require.NoError(t, err)
	cfg.MaxConns = 1
	cfg.ConnConfig.Tracer = postgres.RoundTripCounter{}
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	return pool
}

// trips runs f twice (the first time prepares its statements on the connection) and returns
// the round trips of the second run.
func trips(t *testing.T, f func()) int64 {
	t.Helper()
	f()
	before := postgres.RoundTrips()
	f()
	return postgres.RoundTrips() - before
}

// A transaction sends BEGIN with its first statement and deferred statements with its COMMIT:
// one statement and a key completion make two round trips, not five.
func TestTransactionsPipelineTheirStatements(t *testing.T) {
	ctx := context.Background()
	pool := tracedPool(t)
	database := postgres.NewDB(pool)
	keys := postgres.NewIdempotencyStore(database)
	_, err := pool.Exec(ctx, `CREATE TABLE notes (id int PRIMARY KEY)`)
	require.NoError(t, err)

	require.Zero(t, trips(t, func() {
		require.NoError(t, database.InTx(ctx, func(store.Tx) error { return nil }))
	}), "a transaction that runs nothing sends nothing")

	n := 0
	require.EqualValues(t, 2, trips(t, func() {
		n++
		require.NoError(t, database.InTx(ctx, func(tx store.Tx) error {
			_, err := tx.(*postgres.Tx).PgxTx().Exec(ctx, `INSERT INTO notes VALUES ($1)`, n)
			return err
		}))
	}), "BEGIN with the statement, then COMMIT")

	claimAndComplete := func() {
		n++
		claim := idempotency.Claim{Key: idempotency.Key{GameID: uuid.New(), Environment: "test", Scope: "s", Key: "k"}, Token: uuid.New()}
		_, claimed, err := keys.Repo().ClaimKey(ctx, claim, []byte("h"), idempotency.StaleAfter)
		require.NoError(t, err)
		require.True(t, claimed)
		require.NoError(t, database.InTx(ctx, func(tx store.Tx) error {
			if _, err := tx.(*postgres.Tx).PgxTx().Exec(ctx, `INSERT INTO notes VALUES ($1)`, n); err != nil {
				return err
			}
			return keys.WithTx(tx).CompleteKey(ctx, claim, []byte(`"done"`), "")
		}))
		rec, claimed, err := keys.Repo().ClaimKey(ctx, idempotency.Claim{Key: claim.Key, Token: uuid.New()}, []byte("h"), idempotency.StaleAfter)
		require.NoError(t, err)
		require.False(t, claimed)
		require.True(t, rec.Done, "the completion committed")
	}
	// claim 1, [BEGIN, INSERT] 1, [complete, COMMIT] 1, the check's claim and read 2.
	require.EqualValues(t, 5, trips(t, claimAndComplete))
}

// A deferred statement that refuses (here a key completion whose claim was taken over) stops the
// COMMIT it travels with: the transaction's other work does not commit, the refusal is the
// transaction's error, and the connection is fit for the next transaction.
func TestARefusedDeferredStatementStopsTheCommit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	database := postgres.NewDB(pool)
	keys := postgres.NewIdempotencyStore(database)
	_, err := pool.Exec(ctx, `CREATE TABLE notes (id int PRIMARY KEY)`)
	require.NoError(t, err)

	key := idempotency.Key{GameID: uuid.New(), Environment: "test", Scope: "s", Key: "k"}
	_, claimed, err := keys.Repo().ClaimKey(ctx, idempotency.Claim{Key: key, Token: uuid.New()}, []byte("h"), idempotency.StaleAfter)
	require.NoError(t, err)
	require.True(t, claimed)
	lost := idempotency.Claim{Key: key, Token: uuid.New()} // not the claim that holds the key

	err = database.InTx(ctx, func(tx store.Tx) error {
		if _, err := tx.(*postgres.Tx).PgxTx().Exec(ctx, `INSERT INTO notes VALUES (1)`); err != nil {
			return err
		}
		return keys.WithTx(tx).CompleteKey(ctx, lost, []byte(`"done"`), "")
	})
	require.ErrorIs(t, err, idempotency.ErrClaimLost)
	var count int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM notes`).Scan(&count))
	require.Zero(t, count, "nothing of the refused transaction committed")

	// A statement that fails in PostgreSQL rolls back as well, and the connection goes on.
	err = database.InTx(ctx, func(tx store.Tx) error {
		_, err := tx.(*postgres.Tx).PgxTx().Exec(ctx, `INSERT INTO notes VALUES (1), (1)`)
		return err
	})
	require.Error(t, err)
	require.NoError(t, database.InTx(ctx, func(tx store.Tx) error {
		_, err := tx.(*postgres.Tx).PgxTx().Exec(ctx, `INSERT INTO notes VALUES (2)`)
		return err
	}))
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM notes`).Scan(&count))
	require.Equal(t, 1, count)
}
