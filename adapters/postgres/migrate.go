package postgres

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"

	"github.com/rewardsco/rewards/sql/migrations"
)

// migrationLockID is the PostgreSQL advisory lock every schema change of the service runs
// under (an arbitrary constant: the bytes of "rewards!").
const migrationLockID int64 = 0x7265776172647321

// Migrate applies every pending goose migration, then each of also (River's migrations), all
// under one session-level advisory lock: instances starting together on an empty database take
// turns, and the later ones find nothing left to do. The pool needs two free connections.
func Migrate(ctx context.Context, pool *pgxpool.Pool, log *slog.Logger, also ...func(context.Context, *pgxpool.Pool) error) error {
	lockConn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer lockConn.Release()
	if _, err := lockConn.Exec(ctx, "SELECT pg_advisory_lock($1)", migrationLockID); err != nil {
		return fmt.Errorf("migrate: take the migration lock: %w", err)
	}
	defer func() {
		_, _ = lockConn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", migrationLockID)
	}()

	sqlDB := stdlib.OpenDBFromPool(pool)
	defer sqlDB.Close()
	provider, err := goose.NewProvider(goose.DialectPostgres, sqlDB, migrations.FS)
	if err != nil {
		return fmt.Errorf("goose provider: %w", err)
	}
	results, err := provider.Up(ctx)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	for _, r := range results {
		log.Info("migration applied", "source", r.Source.Path, "duration", r.Duration)
	}
	for _, m := range also {
		if err := m(ctx, pool); err != nil {
			return err
		}
	}
	return nil
}
