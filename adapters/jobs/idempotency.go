package jobs

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/riverqueue/river"
)

// PurgeIdempotencyKeysArgs asks for idempotency keys past their retention to be deleted.
type PurgeIdempotencyKeysArgs struct{}

// Kind implements river.JobArgs.
func (PurgeIdempotencyKeysArgs) Kind() string { return "purge_idempotency_keys" }

// InsertOpts implements river.JobArgsWithInsertOpts.
func (PurgeIdempotencyKeysArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueMaintenance, MaxAttempts: 3}
}

// KeyPurger deletes expired idempotency keys; idempotency.Keeper implements it.
type KeyPurger interface {
	Purge(ctx context.Context) (int64, error)
}

// PurgeInterval is how often idempotency keys past their retention are deleted.
const PurgeInterval = time.Hour

// RegisterIdempotency registers the hourly purge of idempotency keys. River runs periodic jobs
// on the leader instance only, so the purge runs once across instances.
func RegisterIdempotency(q *Queue, purger KeyPurger, log *slog.Logger) {
	Register(q, QueueMaintenance, &purgeKeysWorker{purger: purger, log: log})
	q.AddPeriodic(river.NewPeriodicJob(river.PeriodicInterval(PurgeInterval),
		func() (river.JobArgs, *river.InsertOpts) { return PurgeIdempotencyKeysArgs{}, nil },
		&river.PeriodicJobOpts{RunOnStart: true}))
}

type purgeKeysWorker struct {
	river.WorkerDefaults[PurgeIdempotencyKeysArgs]
	purger KeyPurger
	log    *slog.Logger
}

func (w *purgeKeysWorker) Work(ctx context.Context, _ *river.Job[PurgeIdempotencyKeysArgs]) error {
	n, err := w.purger.Purge(ctx)
	if err != nil {
		return fmt.Errorf("purge idempotency keys: %w", err)
	}
	if n > 0 && w.log != nil {
		w.log.InfoContext(ctx, "purged idempotency keys", "count", n)
	}
	return nil
}
