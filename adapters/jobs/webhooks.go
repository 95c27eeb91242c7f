package jobs

import (
	"context"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"

	"github.com/rewardsco/rewards/adapters/metrics"
	"github.com/rewardsco/rewards/core/webhooks"
)

// DeliverWebhookArgs is a job of a delivery that a database may still hold from the days each
// delivery was a job: it is worked as done, since the delivery's row is what the dispatcher
// (dispatch.go) sends. Nothing inserts one, so it has no insert options.
type DeliverWebhookArgs struct {
	DeliveryID uuid.UUID `json:"delivery_id"`
}

// Kind implements river.JobArgs.
func (DeliverWebhookArgs) Kind() string { return "deliver_webhook" }

// DeliveryRunner makes the attempts of deliveries; webhooks.Service implements it.
type DeliveryRunner interface {
	// DeliverPending makes the next attempt of a delivery read from the outbox, and records it.
	DeliverPending(ctx context.Context, p webhooks.Pending) (webhooks.Attempt, error)
	// DisableFailing applies the auto-disable rule to every configuration.
	DisableFailing(ctx context.Context) ([]uuid.UUID, error)
}

// DisableFailingWebhooksArgs asks for the auto-disable rule to be applied to every webhook
// configuration.
type DisableFailingWebhooksArgs struct{ maintenanceJob }

// Kind implements river.JobArgs.
func (DisableFailingWebhooksArgs) Kind() string { return "disable_failing_webhooks" }

// DisableCheckInterval is how often every configuration is checked against the auto-disable
// rule. A delivery that fails for good checks its own configuration at once; this catches a
// configuration whose window closes with no delivery failing then.
const DisableCheckInterval = 10 * time.Minute

// RegisterWebhooks registers the webhooks module's dispatcher of the outbox's deliveries, run
// from Start to Stop with as many workers as QueueWebhooks has, and the auto-disable rule as a
// periodic job run on the leader instance only.
func RegisterWebhooks(q *Queue, runner DeliveryRunner, outbox WebhookOutbox) {
	Register(q, QueueWebhooks, &legacyDeliverWorker{})
	Register(q, QueueMaintenance, &disableWorker{runner: runner, log: q.opts.Logger})
	q.every(DisableCheckInterval, DisableFailingWebhooksArgs{})
	d := newDispatcher(outbox, runner, q.opts.concurrency(QueueWebhooks), q.opts.Metrics, q.opts.Logger)
	d.paused = q.webhooksPaused
	q.webhooks = d
}

// DeliveriesAdded implements postgres.DeliveryNotifier: it wakes this instance's dispatcher.
func (q *Queue) DeliveriesAdded() {
	if q.webhooks != nil {
		q.webhooks.nudge()
	}
}

// webhooksPaused tells whether QueueWebhooks is paused (River's QueuePause, as an operator
// pauses any queue); an unknown answer is not paused.
func (q *Queue) webhooksPaused(ctx context.Context) bool {
	if q.client == nil {
		return false
	}
	queue, err := q.client.QueueGet(ctx, QueueWebhooks)
	return err == nil && queue.PausedAt != nil
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

// legacyDeliverWorker works a DeliverWebhookArgs job left from before the outbox as done.
type legacyDeliverWorker struct {
	river.WorkerDefaults[DeliverWebhookArgs]
}

func (*legacyDeliverWorker) Work(context.Context, *river.Job[DeliverWebhookArgs]) error { return nil }

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
