package jobs_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/jobs"
	"github.com/rewardsco/rewards/adapters/postgres"
	"github.com/rewardsco/rewards/adapters/postgres/pgtest"
	"github.com/rewardsco/rewards/core/store"
)

// A burst of provider events for one order queues one payment look, not one each (every look
// is a call to the provider); the look at the session's expiry is another.
func TestReconcileJobsAreUniquePerOrderAndWindow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, pgtest.URL(t))
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	queue := jobs.New(pool, jobs.Options{Logger: slog.New(slog.DiscardHandler)})
	jobs.RegisterPartner(queue, nil, slog.New(slog.DiscardHandler))
	require.NoError(t, queue.Open())
	database := postgres.NewDB(pool)
	order, other := uuid.New(), uuid.New()
	now := time.Now()
	schedule := func(id uuid.UUID, at time.Time) {
		require.NoError(t, database.InTx(ctx, func(tx store.Tx) error { return queue.ScheduleReconcile(ctx, tx, id, at) }))
	}
	for range 20 {
		schedule(order, now)
	}
	schedule(order, now.Add(30*time.Minute)) // the expiry's look
	schedule(other, now)
	count := func(id uuid.UUID) int {
		var n int
		require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = 'reconcile_payment' AND args->>'order_id' = $1`, id.String()).Scan(&n))
		return n
	}
	require.Equal(t, 2, count(order), "20 events at once and the expiry")
	require.Equal(t, 1, count(other))
}
