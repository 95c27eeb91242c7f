package jobs

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/riverqueue/river"
)

// PurgeOTPRecordsArgs asks for OTP records past their retention to be deleted.
type PurgeOTPRecordsArgs struct{ maintenanceJob }

// Kind implements river.JobArgs.
func (PurgeOTPRecordsArgs) Kind() string { return "purge_otp_records" }

// PurgeWebhookDeliveriesArgs asks for finished webhook deliveries past their retention to be
// deleted.
type PurgeWebhookDeliveriesArgs struct{ maintenanceJob }

// Kind implements river.JobArgs.
func (PurgeWebhookDeliveriesArgs) Kind() string { return "purge_webhook_deliveries" }

// RetentionStore deletes rows past their retention, at most batch per table a call; more
// reports that another call may find more. postgres.Retention implements it.
type RetentionStore interface {
	PurgeOTPBatch(ctx context.Context, olderThan time.Duration, batch int) (deleted int64, more bool, err error)
	PurgeDeliveriesBatch(ctx context.Context, olderThan time.Duration, batch int) (deleted int64, more bool, err error)
}

// Retention purge defaults.
const (
	// DefaultPurgeBatch is how many rows one statement deletes.
	DefaultPurgeBatch = 1000
	// DefaultPurgeBatchesPerRun bounds one run (200,000 rows a table with the default batch);
	// a larger backlog is worked by the same job again a second later (snoozed), so a run
	// stays well inside the job timeout and other maintenance jobs get their turn.
	DefaultPurgeBatchesPerRun = 200
	// DefaultOTPRetention keeps OTP records three days: the limits count codes and failed
	// checks of the last hour and a lock lasts 24 hours, so two days beyond those windows.
	DefaultOTPRetention = 72 * time.Hour
	// DefaultDeliveryRetention keeps finished webhook deliveries 30 days, for the studio's
	// delivery list and stats.
	DefaultDeliveryRetention = 30 * 24 * time.Hour
)

// RetentionOptions are the retention periods and the purges' bounds.
type RetentionOptions struct {
	// OTP is how long OTP records are kept; Deliveries how long finished webhook deliveries are
	// (zero: DefaultOTPRetention, DefaultDeliveryRetention).
	OTP, Deliveries time.Duration
	// Batch is the rows one statement deletes (zero: DefaultPurgeBatch); BatchesPerRun the
	// statements one run makes before it snoozes (zero: DefaultPurgeBatchesPerRun).
	Batch, BatchesPerRun int
}

// RegisterRetention registers the hourly purges of OTP records and finished webhook
// deliveries. Like the idempotency purge, they are River periodic jobs, run on the leader
// instance only, so each runs once across instances.
func RegisterRetention(q *Queue, store RetentionStore, opts RetentionOptions, log *slog.Logger) {
	if opts.OTP <= 0 {
		opts.OTP = DefaultOTPRetention
	}
	if opts.Deliveries <= 0 {
		opts.Deliveries = DefaultDeliveryRetention
	}
	if opts.Batch <= 0 {
		opts.Batch = DefaultPurgeBatch
	}
	if opts.BatchesPerRun <= 0 {
		opts.BatchesPerRun = DefaultPurgeBatchesPerRun
	}
	Register(q, QueueMaintenance, &purgeWorker[PurgeOTPRecordsArgs]{what: "OTP records", olderThan: opts.OTP,
		purge: store.PurgeOTPBatch, opts: opts, log: log})
	Register(q, QueueMaintenance, &purgeWorker[PurgeWebhookDeliveriesArgs]{what: "webhook deliveries", olderThan: opts.Deliveries,
		purge: store.PurgeDeliveriesBatch, opts: opts, log: log})
	q.every(PurgeInterval, PurgeOTPRecordsArgs{})
	q.every(PurgeInterval, PurgeWebhookDeliveriesArgs{})
}

// everyBatch bounds a purge whose store deletes a batch a call as the retention purges do.
var everyBatch = RetentionOptions{Batch: DefaultPurgeBatch, BatchesPerRun: DefaultPurgeBatchesPerRun}

// purgeWorker deletes rows past olderThan in batches, up to BatchesPerRun of them a run (every
// purge of the service: retention, idempotency keys, partner tokens).
type purgeWorker[T river.JobArgs] struct {
	river.WorkerDefaults[T]
	what      string
	olderThan time.Duration
	purge     func(ctx context.Context, olderThan time.Duration, batch int) (int64, bool, error)
	opts      RetentionOptions
	log       *slog.Logger
}

func (w *purgeWorker[T]) Work(ctx context.Context, _ *river.Job[T]) error {
	n, more, err := PurgeInBatches(ctx, w.purge, w.olderThan, w.opts.Batch, w.opts.BatchesPerRun)
	if n > 0 && w.log != nil {
		attrs := []any{"count", n}
		if w.olderThan > 0 {
			attrs = append(attrs, "retention", w.olderThan)
		}
		w.log.InfoContext(ctx, "purged "+w.what, attrs...)
	}
	if err != nil {
		return fmt.Errorf("purge %s: %w", w.what, err)
	}
	if more {
		// A backlog: carry on shortly, in a fresh run (a snooze is not an attempt).
		return river.JobSnooze(time.Second)
	}
	return nil
}

// PurgeInBatches calls purge with batch until it reports nothing more or it has run
// maxBatches times, and returns the rows deleted and whether more may remain.
func PurgeInBatches(ctx context.Context, purge func(context.Context, time.Duration, int) (int64, bool, error),
	olderThan time.Duration, batch, maxBatches int) (deleted int64, more bool, err error) {
	for range maxBatches {
		n, again, err := purge(ctx, olderThan, batch)
		deleted += n
		if err != nil || !again {
			return deleted, false, err
		}
		if err := ctx.Err(); err != nil {
			return deleted, true, err
		}
	}
	return deleted, true, nil
}
