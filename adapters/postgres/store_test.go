package postgres_test

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/jobs"
	"github.com/rewardsco/rewards/adapters/postgres"
	"github.com/rewardsco/rewards/adapters/postgres/pgtest"
	"github.com/rewardsco/rewards/core/store"
)

// Two transactions that read and then write what the other read cannot both commit under
// SERIALIZABLE: PostgreSQL aborts one with 40001. InTx runs the loser again, so both succeed.
func TestInTxRetriesSerializationFailures(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	_, err := pool.Exec(ctx, `CREATE TABLE counters (id int PRIMARY KEY, n int NOT NULL); INSERT INTO counters VALUES (1, 0), (2, 0)`)
	require.NoError(t, err)
	database := postgres.NewDB(pool)

	var runs atomic.Int32
	bothRead := make(chan struct{})
	var once sync.Once
	var arrived atomic.Int32
	work := func(mine, theirs int) error {
		return database.InTx(ctx, func(t store.Tx) error {
			runs.Add(1)
			tx := t.(*postgres.Tx).PgxTx()
			if _, err := tx.Exec(ctx, `SET TRANSACTION ISOLATION LEVEL SERIALIZABLE`); err != nil {
				return err
			}
			var n int
			if err := tx.QueryRow(ctx, `SELECT n FROM counters WHERE id = $1`, theirs).Scan(&n); err != nil {
				return err
			}
			// On the first run both transactions read before either writes.
			if arrived.Add(1) == 2 {
				once.Do(func() { close(bothRead) })
			}
			<-bothRead
			_, err := tx.Exec(ctx, `UPDATE counters SET n = $1 + 1 WHERE id = $2`, n, mine)
			return err
		})
	}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range 2 {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = work(i+1, 2-i) }()
	}
	wg.Wait()
	require.NoError(t, errors.Join(errs...))
	// PostgreSQL aborted at least one of them (sometimes both) and InTx ran it again.
	require.GreaterOrEqual(t, runs.Load(), int32(3), "a serialization failure was retried")
}

// A use case spanning modules runs them in one transaction: when it fails, nothing of any
// module is left.
func TestOneTransactionAcrossModulesRollsBackWhole(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	database := postgres.NewDB(pool)
	games := postgres.NewStudioStore(database)
	boom := errors.New("boom")
	err := database.InTx(ctx, func(t store.Tx) error {
		if _, err := games.WithTx(t).CreateStudio(ctx, "Rolled Back"); err != nil {
			return err
		}
		return boom
	})
	require.ErrorIs(t, err, boom)
	list, err := games.Repo().ListStudios(ctx)
	require.NoError(t, err)
	require.Empty(t, list)
}

// Instances starting together on an empty database take turns migrating (goose's and River's
// migrations under one lock), and every one of them comes up.
func TestConcurrentMigrationsOnAnEmptyDatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := pgtest.EmptyURL(t)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pool, err := pgxpool.New(ctx, url)
			if err != nil {
				errs[i] = err
				return
			}
			defer pool.Close()
			errs[i] = postgres.Migrate(ctx, pool, slog.New(slog.DiscardHandler), jobs.Migrate)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
}
