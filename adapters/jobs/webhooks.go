package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/rewardsco/rewards/adapters/metrics"
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
	// DisableFailing applies the auto-disable rule to every configuration.
	DisableFailing(ctx context.Context) ([]uuid.UUID, error)
}

// DisableFailingWebhooksArgs asks for the auto-disable rule to be applied to every webhook
// configuration.
type DisableFailingWebhooksArgs struct{}

// Kind implements river.JobArgs.
func (DisableFailingWebhooksArgs) Kind() string { return "disable_failing_webhooks" }

// InsertOpts implements river.JobArgsWithInsertOpts.
func (DisableFailingWebhooksArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueMaintenance, MaxAttempts: 3}
}

// DisableCheckInterval is how often every configuration is checked against the auto-disable
// rule. A delivery that fails for good checks its own configuration at once; this catches a
// configuration whose window closes with no delivery failing then.
const DisableCheckInterval = 10 * time.Minute

// RegisterWebhooks registers the webhooks module's delivery worker, and the auto-disable rule
// as a periodic job run on the leader instance only.
func RegisterWebhooks(q *Queue, runner DeliveryRunner) {
	Register(q, QueueWebhooks, &deliverWorker{runner: runner, metrics: q.opts.Metrics})
	Register(q, QueueMaintenance, &disableWorker{runner: runner, log: q.opts.Logger})
	q.AddPeriodic(river.NewPeriodicJob(river.PeriodicInterval(DisableCheckInterval),
		func() (river.JobArgs, *river.InsertOpts) { return DisableFailingWebhooksArgs{}, nil },
		&river.PeriodicJobOpts{RunOnStart: true}))
}

// disableWorker works DisableFailingWebhooksArgs.
type disableWorker struct {
	river.WorkerDefaults[DisableFailingWebhooksArgs]
	runner DeliveryRunner
	log    *slog.Logger
}

func (w *disableWorker) Work(ctx context.Context, _ *river.Job[DisableFailingWebhooksArgs]) error {
	ids, err := w.runner.DisableFailing(ctx)
	if err != nil {
		return err
	}
	if len(ids) > 0 && w.log != nil {
		w.log.InfoContext(ctx, "disabled failing webhook configurations", "count", len(ids), "ids", ids)
	}
	return nil
}

// deliverWorker works DeliverWebhookArgs.
type deliverWorker struct {
	river.WorkerDefaults[DeliverWebhookArgs]
	runner  DeliveryRunner
	metrics *metrics.Metrics
}

// Work makes one attempt and, when another is due, snoozes the job until then. When the
// delivery's configuration already has webhooks.MaxInFlight attempts running in this instance
// (and no slot frees up shortly), no attempt is made and the job is snoozed for as long as
// Deliver says (0.5 to 15 s, paced to the receiver): a snooze counts as none of River's attempts
// nor of the delivery's, and the worker is free at once for other studios' deliveries.
func (w *deliverWorker) Work(ctx context.Context, job *river.Job[DeliverWebhookArgs]) error {
	a, err := w.runner.Deliver(ctx, job.Args.DeliveryID)
	w.metrics.WebhookDelivery(deliveryOutcome(a, err))
	if err != nil {
		if job.Attempt >= job.MaxAttempts {
			// River discards the job after this; the record must not stay pending forever.
			if aerr := w.runner.Abandon(context.WithoutCancel(ctx), job.Args.DeliveryID, "internal error: delivery abandoned"); aerr != nil {
				err = errors.Join(err, aerr)
			}
		}
		return fmt.Errorf("deliver %s: %w", job.Args.DeliveryID, err)
	}
	if a.Busy || a.RetryAfter > 0 {
		return river.JobSnooze(a.RetryAfter)
	}
	return nil
}

// deliveryOutcome names what one run of a delivery job came to, for /metrics.
func deliveryOutcome(a webhooks.Attempt, err error) string {
	switch {
	case err != nil:
		return metrics.DeliveryError
	case a.Busy:
		return metrics.DeliveryBusy
	case a.Delivered:
		return metrics.DeliveryDelivered
	case a.RetryAfter > 0:
		return metrics.DeliveryRetry
	case a.Err != nil:
		return metrics.DeliveryFailed
	}
	return metrics.DeliverySkipped
}

// Timeout leaves room for the receiver's 30 s on top of the bookkeeping.
func (w *deliverWorker) Timeout(*river.Job[DeliverWebhookArgs]) time.Duration {
	return webhooks.AttemptTimeout + 15*time.Second
}

// EnqueueDeliveries queues one delivery job per id inside tx; postgres.CoinsRepo calls it for
// the deliveries a coin event fans out to.
func (q *Queue) EnqueueDeliveries(ctx context.Context, tx pgx.Tx, ids []uuid.UUID) error {
	params := make([]river.InsertManyParams, len(ids))
	for i, id := range ids {
		params[i] = river.InsertManyParams{Args: DeliverWebhookArgs{DeliveryID: id}}
	}
	if err := q.InsertManyTx(ctx, tx, params); err != nil {
		return fmt.Errorf("enqueue deliveries: %w", err)
	}
	return nil
}
