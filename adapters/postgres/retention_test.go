package postgres_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/jobs"
	"github.com/rewardsco/rewards/adapters/postgres"
	"github.com/rewardsco/rewards/adapters/postgres/pgtest"
	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/idempotency"
	"github.com/rewardsco/rewards/core/players"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/webhooks"
)

// retentionBundle is a game with a webhook configuration on a fresh database, and the purges.
type retentionBundle struct {
	pool      *pgxpool.Pool
	retention *postgres.Retention
	game      studio.Game
	coins     *coins.Service
	movement  coins.Movement
}

func setupRetention(t *testing.T) retentionBundle {
	t.Helper()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	database := postgres.NewDB(pool)
	queue := jobs.New(pool, jobs.Options{Logger: slog.New(slog.DiscardHandler)})
	games := postgres.NewStudioStore(database)
	studios := studio.NewService(games, newAuditLog(database))
	s, err := studios.CreateStudio(ctx, "Retention Studio")
	require.NoError(t, err)
	g, err := studios.CreateGame(ctx, studio.Game{StudioID: s.ID, Name: "Retention Game"})
	require.NoError(t, err)
	coinSvc := coins.NewService(database, postgres.NewCoinsStore(database, queue), games,
		idempotency.NewKeeper(database, postgres.NewIdempotencyStore(database)))
	c, err := coinSvc.CreateCoin(ctx, coins.Coin{GameID: g.ID, Name: "Gems", ImageURL: "https://cdn.example.com/gem.png"})
	require.NoError(t, err)
	caller := studio.Caller{GameID: g.ID, StudioID: s.ID, Environment: studio.Test}
	p, err := players.NewService(database, postgres.NewPlayersStore(database), games, players.Config{}).CreateWithUUID(ctx, caller, "p1")
	require.NoError(t, err)
	hooks, err := webhooks.NewService(postgres.NewWebhooksStore(database, nil), webhooks.Options{SecretKey: make([]byte, 32), Transport: anyURL{}, Audit: newAuditLog(database)})
	require.NoError(t, err)
	jobs.RegisterWebhooks(queue, hooks, postgres.NewWebhookOutbox(database))
	require.NoError(t, queue.Open()) // deliveries are queued, never worked
	url, events := "https://hooks.example.com/rewards", []string{"COINS_CREDITED"}
	_, _, err = hooks.Configure(ctx, webhooks.Scope{StudioID: s.ID, Environment: studio.Test}, webhooks.Change{URL: &url, SubscribedEvents: &events})
	require.NoError(t, err)
	return retentionBundle{pool: pool, retention: postgres.NewRetention(database), game: g.Game, coins: coinSvc,
		movement: coins.Movement{GameID: g.ID, Environment: studio.Test, PlayerID: p.Player.ID, UserUUID: "p1", CoinID: c.ID, Amount: 1}}
}

func (b retentionBundle) exec(t *testing.T, sql string, args ...any) {
	t.Helper()
	_, err := b.pool.Exec(context.Background(), sql, args...)
	require.NoError(t, err)
}

func (b retentionBundle) count(t *testing.T, sql string) int {
	t.Helper()
	var n int
	require.NoError(t, b.pool.QueryRow(context.Background(), sql).Scan(&n))
	return n
}

// TestRetentionPurgesOldDeliveriesInBatchesAndKeepsPendingOnes: finished deliveries older than
// the retention go, at most a batch per call; pending and retrying ones stay whatever their
// age, and recent finished ones stay.
func TestRetentionPurgesOldDeliveriesInBatchesAndKeepsPendingOnes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupRetention(t)
	for range 8 {
		_, _, err := b.coins.Distribute(ctx, b.movement)
		require.NoError(t, err)
	}
	require.Equal(t, 8, b.count(t, `SELECT count(*) FROM webhook_deliveries`))
	const retention = 30 * 24 * time.Hour
	// Number the deliveries 1 to 8 and give them their fates.
	b.exec(t, `UPDATE webhook_deliveries d SET status = f.status, created_at = now() - f.age::interval
		FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM webhook_deliveries) AS o
		JOIN (VALUES (1, 'SUCCESS', '31 days'), (2, 'SUCCESS', '40 days'), (3, 'FAILED', '31 days'), (4, 'FAILED', '300 days'),
		             (5, 'PENDING', '31 days'), (6, 'RETRYING', '90 days'), (7, 'SUCCESS', '29 days'), (8, 'FAILED', '1 hour'))
		     AS f(n, status, age) ON f.n = o.n
		WHERE d.id = o.id`)

	n, more, err := b.retention.PurgeDeliveriesBatch(ctx, retention, 3)
	require.NoError(t, err)
	require.EqualValues(t, 3, n, "one call deletes at most a batch")
	require.True(t, more)
	n, more, err = b.retention.PurgeDeliveriesBatch(ctx, retention, 3)
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	require.False(t, more)
	n, _, err = b.retention.PurgeDeliveriesBatch(ctx, retention, 3)
	require.NoError(t, err)
	require.Zero(t, n)

	var left []string
	rows, err := b.pool.Query(ctx, `SELECT status FROM webhook_deliveries ORDER BY status`)
	require.NoError(t, err)
	for rows.Next() {
		var s string
		require.NoError(t, rows.Scan(&s))
		left = append(left, s)
	}
	require.NoError(t, rows.Err())
	require.Equal(t, []string{"FAILED", "PENDING", "RETRYING", "SUCCESS"}, left)
}

// TestRetentionPurgesOldOTPRecordsAndKeepsWhatTheLimitsCount: codes and failed checks older
// than the retention go, in batches; a failure run still counting towards the lock stays
// whatever its age, as does a lock not yet lifted (or lifted within the retention).
func TestRetentionPurgesOldOTPRecordsAndKeepsWhatTheLimitsCount(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupRetention(t)
	const retention = 72 * time.Hour
	for _, age := range []string{"73 hours", "80 hours", "10 days", "100 days", "73 hours", "71 hours", "1 minute"} {
		b.exec(t, `INSERT INTO otp_codes (game_id, environment, phone, code_hash, expires_at, created_at)
			VALUES ($1, 'test', '+919876543210', '\x00', now() - $2::interval + interval '5 minutes', now() - $2::interval)`, b.game.ID, age)
	}
	for _, age := range []string{"73 hours", "5 days", "30 minutes"} {
		b.exec(t, `INSERT INTO otp_failures (game_id, environment, phone, failed_at) VALUES ($1, 'test', '+919876543210', now() - $2::interval)`, b.game.ID, age)
	}
	for _, run := range []struct {
		phone    string
		failures int
		locked   *string // interval from now; nil: no lock
	}{
		{"+910000000001", 0, ptr("-73 hours")}, // lock lifted long ago: goes
		{"+910000000002", 0, nil},              // counts nothing: goes
		{"+910000000003", 57, nil},             // a run in progress: stays
		{"+910000000004", 0, ptr("10 hours")},  // locked now: stays
		{"+910000000005", 0, ptr("-1 hour")},   // lifted within the retention: stays
	} {
		b.exec(t, `INSERT INTO otp_failure_runs (game_id, environment, phone, failures, locked_until)
			VALUES ($1, 'test', $2, $3, now() + $4::interval)`, b.game.ID, run.phone, run.failures, run.locked)
	}

	// One call: at most a batch of each table.
	n, more, err := b.retention.PurgeOTPBatch(ctx, retention, 2)
	require.NoError(t, err)
	require.EqualValues(t, 6, n)
	require.True(t, more)
	require.Equal(t, 5, b.count(t, `SELECT count(*) FROM otp_codes`))

	// The job's loop finishes the rest, and stops once a call finds less than a batch.
	deleted, more, err := jobs.PurgeInBatches(ctx, b.retention.PurgeOTPBatch, retention, 2, 10)
	require.NoError(t, err)
	require.False(t, more)
	require.EqualValues(t, 3, deleted)
	require.Equal(t, 2, b.count(t, `SELECT count(*) FROM otp_codes`), "the codes of the last 72 hours stay")
	require.Zero(t, b.count(t, `SELECT count(*) FROM otp_codes WHERE created_at < now() - interval '72 hours'`))
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM otp_failures`))
	require.Equal(t, 3, b.count(t, `SELECT count(*) FROM otp_failure_runs`))
	require.Zero(t, b.count(t, `SELECT count(*) FROM otp_failure_runs WHERE phone IN ('+910000000001', '+910000000002')`))

	// A run with a bound of one batch leaves the rest for later and says so.
	for range 5 {
		b.exec(t, `INSERT INTO otp_codes (game_id, environment, phone, code_hash, expires_at, created_at)
			VALUES ($1, 'test', '+919876543211', '\x00', now() - interval '4 days', now() - interval '4 days')`, b.game.ID)
	}
	deleted, more, err = jobs.PurgeInBatches(ctx, b.retention.PurgeOTPBatch, retention, 2, 1)
	require.NoError(t, err)
	require.True(t, more)
	require.EqualValues(t, 2, deleted)
}

func ptr(s string) *string { return &s }
