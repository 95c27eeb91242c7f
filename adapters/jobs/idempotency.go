package jobs

import (
	"context"
	"log/slog"
	"time"
)

// PurgeIdempotencyKeysArgs asks for idempotency keys past their retention to be deleted.
type PurgeIdempotencyKeysArgs struct{ maintenanceJob }

// Kind implements river.JobArgs.
func (PurgeIdempotencyKeysArgs) Kind() string { return "purge_idempotency_keys" }

// KeyPurger deletes expired idempotency keys; idempotency.Keeper implements it.
type KeyPurger interface {
	Purge(ctx context.Context) (int64, error)
}

// PurgeInterval is how often idempotency keys past their retention are deleted.
const PurgeInterval = time.Hour

// RegisterIdempotency registers the hourly purge of idempotency keys (one statement a run).
// River runs periodic jobs on the leader instance only, so the purge runs once across instances.
func RegisterIdempotency(q *Queue, purger KeyPurger, log *slog.Logger) {
	Register(q, QueueMaintenance, &purgeWorker[PurgeIdempotencyKeysArgs]{what: "idempotency keys", log: log,
		opts: RetentionOptions{Batch: 1, BatchesPerRun: 1},
		purge: func(ctx context.Context, _ time.Duration, _ int) (int64, bool, error) {
			n, err := purger.Purge(ctx)
			return n, false, err
		}})
	q.every(PurgeInterval, PurgeIdempotencyKeysArgs{})
}
