// Package jobs runs the service's durable background work on River, a job queue kept in the
// same PostgreSQL database, so that a job is queued in the very transaction that makes it due.
// Several service instances share the queue; River locks each job for one of them.
package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/rewardsco/rewards/core/webhooks"
)

// QueueWebhooks is the queue webhook deliveries run on.
const QueueWebhooks = "webhooks"

// DeliverWebhookArgs asks for the next attempt of one webhook delivery.
type DeliverWebhookArgs struct {
	DeliveryID uuid.UUID `json:"delivery_id"`
}

// Kind implements river.JobArgs.
func (DeliverWebhookArgs) Kind() string { return "deliver_webhook" }

// InsertOpts implements river.JobArgsWithInsertOpts. MaxAttempts bounds retries after
// unexpected errors (a database outage); the webhook's own five attempts are counted on the
// delivery record and rescheduled by snoozing.
func (DeliverWebhookArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueWebhooks, MaxAttempts: 25}
}

// DeliveryRunner makes one attempt of a delivery; webhooks.Service implements it.
type DeliveryRunner interface {
	Deliver(ctx context.Context, id uuid.UUID) (webhooks.Attempt, error)
	// Abandon dead-letters a delivery the queue gives up on after repeated internal errors.
	Abandon(ctx context.Context, id uuid.UUID, reason string) error
}

// deliverWorker works DeliverWebhookArgs.
type deliverWorker struct {
	river.WorkerDefaults[DeliverWebhookArgs]
	runner func() DeliveryRunner
}

// Work makes one attempt and, when another is due, snoozes the job until then.
func (w *deliverWorker) Work(ctx context.Context, job *river.Job[DeliverWebhookArgs]) error {
	a, err := w.runner().Deliver(ctx, job.Args.DeliveryID)
	if err != nil {
		if job.Attempt >= job.MaxAttempts {
			// River discards the job after this; the record must not stay pending forever.
			if aerr := w.runner().Abandon(context.WithoutCancel(ctx), job.Args.DeliveryID, "internal error: delivery abandoned"); aerr != nil {
				err = errors.Join(err, aerr)
			}
		}
		return fmt.Errorf("deliver %s: %w", job.Args.DeliveryID, err)
	}
	if a.RetryAfter > 0 {
		return river.JobSnooze(a.RetryAfter)
	}
	return nil
}

// Timeout leaves room for the receiver's 30 s on top of the bookkeeping.
func (w *deliverWorker) Timeout(*river.Job[DeliverWebhookArgs]) time.Duration {
	return webhooks.AttemptTimeout + 15*time.Second
}

// Queue is the River client: it inserts jobs inside callers' transactions and works them.
type Queue struct {
	client *river.Client[pgx.Tx]
	runner DeliveryRunner
}

// Options configure the queue.
type Options struct {
	// Workers is how many webhook deliveries run at once in this instance.
	Workers int
	Logger  *slog.Logger
}

// Migrate creates or updates River's tables.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	m, err := rivermigrate.New(riverpgxv5.New(pool), nil)
	if err != nil {
		return err
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("river migrate: %w", err)
	}
	return nil
}

// New returns a queue on pool. Call SetRunner before Start.
func New(pool *pgxpool.Pool, opts Options) (*Queue, error) {
	q := &Queue{}
	workers := river.NewWorkers()
	river.AddWorker(workers, &deliverWorker{runner: func() DeliveryRunner { return q.runner }})
	if opts.Workers <= 0 {
		opts.Workers = 50
	}
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{
		Queues:            map[string]river.QueueConfig{QueueWebhooks: {MaxWorkers: opts.Workers}},
		Workers:           workers,
		Logger:            opts.Logger,
		FetchPollInterval: 250 * time.Millisecond,
		FetchCooldown:     20 * time.Millisecond,
		// A job whose instance died mid-attempt is worked again after this long.
		RescueStuckJobsAfter: 2 * time.Minute,
	})
	if err != nil {
		return nil, err
	}
	q.client = client
	return q, nil
}

// SetRunner sets what delivery jobs call.
func (q *Queue) SetRunner(r DeliveryRunner) { q.runner = r }

// Start begins working jobs until Stop.
func (q *Queue) Start(ctx context.Context) error { return q.client.Start(ctx) }

// Stop lets running jobs finish, then stops.
func (q *Queue) Stop(ctx context.Context) error { return q.client.Stop(ctx) }

// EnqueueDeliveries queues one delivery job per id inside tx.
func (q *Queue) EnqueueDeliveries(ctx context.Context, tx pgx.Tx, ids []uuid.UUID) error {
	params := make([]river.InsertManyParams, len(ids))
	for i, id := range ids {
		params[i] = river.InsertManyParams{Args: DeliverWebhookArgs{DeliveryID: id}}
	}
	if _, err := q.client.InsertManyTx(ctx, tx, params); err != nil {
		return fmt.Errorf("enqueue deliveries: %w", err)
	}
	return nil
}
