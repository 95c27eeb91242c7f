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

	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/store"
)

// FulfilOrderArgs asks for the next step of an order the voucher provider fulfils.
type FulfilOrderArgs struct {
	OrderID uuid.UUID `json:"order_id"`
}

// Kind implements river.JobArgs.
func (FulfilOrderArgs) Kind() string { return "fulfil_order" }

// InsertOpts implements river.JobArgsWithInsertOpts. Polling the provider snoozes the job,
// which spends no attempt; attempts count unexpected errors (the database or the provider
// down), retried with River's backoff. An order has one job at a time (unique by its args in
// River's default states): the placing process handing an order over and the recovery may
// both queue it.
func (FulfilOrderArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueOrders, MaxAttempts: 25, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// RecoverOrdersArgs looks for the open orders of the voucher provider that have no fulfilment
// job (orders.Scheduler): their process died, or could not queue it, before their wait ended.
type RecoverOrdersArgs struct{}

// Kind implements river.JobArgs.
func (RecoverOrdersArgs) Kind() string { return "recover_orders" }

// InsertOpts implements river.JobArgsWithInsertOpts.
func (RecoverOrdersArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueMaintenance, MaxAttempts: 1}
}

// RecoverInterval is how often the leader instance looks for orders without a job: an order
// whose process died is fulfilled at most this long after its wait (and grace) ran out.
const RecoverInterval = 5 * time.Second

// recoverGrace is added to the wait before an order without a job is taken for orphaned: the
// placing process queues the job of an order unfinished within the wait just after it.
const recoverGrace = 2 * time.Second

// recoverBatch bounds the orders one run queues; a run that fills it runs again shortly.
const recoverBatch = 1000

// orphanOrders are the open orders of the voucher provider, unchanged for longer than $1, with
// no job queued or running (an order's job finishes only once the order is final, or once it
// waits for an operator, so an open order with a finished job has none), and not yet waiting
// for an operator (orders.GiveUpAfter, $3, past its deadline: its job ended on purpose). They
// are found with the orders' open-status index, their jobs with River's index of job args.
const orphanOrders = `SELECT o.id FROM orders o
WHERE o.status IN ('INITIATED', 'PROCESSING', 'TIMEOUT') AND o.provider_product IS NOT NULL
  AND o.updated_at < now() - make_interval(secs => $1::float8)
  AND o.deadline_at > now() - make_interval(secs => $3::float8)
  AND NOT EXISTS (SELECT 1 FROM river_job j WHERE j.kind = 'fulfil_order'
      AND j.args @> jsonb_build_object('order_id', o.id::text)
      AND j.state NOT IN ('completed', 'cancelled', 'discarded'))
ORDER BY o.updated_at
LIMIT $2`

// awaitingOperator counts the open orders of the voucher provider that wait for an operator:
// without a final answer orders.GiveUpAfter ($1) past their deadline. It reads the orders'
// open-status index.
const awaitingOperator = `SELECT count(*) FROM orders o
WHERE o.status IN ('INITIATED', 'PROCESSING', 'TIMEOUT') AND o.provider_product IS NOT NULL
  AND o.deadline_at <= now() - make_interval(secs => $1::float8)`

// OrderFulfiller advances an order by one step and says when to ask again (zero: final);
// orders.Service implements it.
type OrderFulfiller interface {
	Fulfil(ctx context.Context, id uuid.UUID) (time.Duration, error)
}

// RegisterOrders registers the orders module's fulfilment worker, and the recovery of orders
// left without a job, every RecoverInterval on the leader instance; wait is how long a placing
// process waits for the provider before it hands an order to a job.
func RegisterOrders(q *Queue, f OrderFulfiller, wait time.Duration, log *slog.Logger) {
	Register(q, QueueOrders, &fulfilWorker{f: f, log: log})
	Register(q, QueueMaintenance, &recoverWorker{q: q, after: wait + recoverGrace, log: log})
	q.every(RecoverInterval, RecoverOrdersArgs{})
}

type recoverWorker struct {
	river.WorkerDefaults[RecoverOrdersArgs]
	q     *Queue
	after time.Duration
	log   *slog.Logger
}

// Work queues the jobs of the orders found orphaned.
func (w *recoverWorker) Work(ctx context.Context, _ *river.Job[RecoverOrdersArgs]) error {
	n, err := w.q.RecoverOrders(ctx, w.after)
	if n > 0 && w.log != nil {
		w.log.WarnContext(ctx, "queued the fulfilment of orders left without a job", "count", n)
	}
	if err != nil {
		return fmt.Errorf("recover orders: %w", err)
	}
	if n == recoverBatch {
		return river.JobSnooze(time.Second)
	}
	return nil
}

// RecoverOrders queues, due at once, the fulfilment job of every open order of the voucher
// provider unchanged for longer than after and without one, those waiting for an operator
// aside; it returns how many it queued (at most recoverBatch).
func (q *Queue) RecoverOrders(ctx context.Context, after time.Duration) (int, error) {
	rows, err := q.pool.Query(ctx, orphanOrders, after.Seconds(), recoverBatch, orders.GiveUpAfter.Seconds())
	if err != nil {
		return 0, err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
	if err != nil || len(ids) == 0 {
		return 0, err
	}
	params := make([]river.InsertManyParams, len(ids))
	for i, id := range ids {
		params[i] = river.InsertManyParams{Args: FulfilOrderArgs{OrderID: id}}
	}
	if _, err := q.client.InsertMany(ctx, params); err != nil {
		return 0, err
	}
	return len(ids), nil
}

// OrdersAwaitingOperator counts the open orders of the voucher provider that wait for an
// operator (orders.ErrAwaitingOperator), for /metrics: any is an alert.
func (q *Queue) OrdersAwaitingOperator(ctx context.Context) (int64, error) {
	var n int64
	if err := q.pool.QueryRow(ctx, awaitingOperator, orders.GiveUpAfter.Seconds()).Scan(&n); err != nil {
		return 0, fmt.Errorf("count the orders awaiting an operator: %w", err)
	}
	return n, nil
}

type fulfilWorker struct {
	river.WorkerDefaults[FulfilOrderArgs]
	f   OrderFulfiller
	log *slog.Logger
}

// Work makes one step and snoozes the job until the next one is due. An order that waits for an
// operator ends its job with an alert: asked again, it would only alert again.
func (w *fulfilWorker) Work(ctx context.Context, job *river.Job[FulfilOrderArgs]) error {
	next, err := w.f.Fulfil(ctx, job.Args.OrderID)
	if errors.Is(err, orders.ErrAwaitingOperator) {
		if w.log != nil {
			w.log.ErrorContext(ctx, "alert: an order waits for an operator", "order_id", job.Args.OrderID, "error", err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("fulfil order %s: %w", job.Args.OrderID, err)
	}
	if next > 0 {
		return river.JobSnooze(next)
	}
	return nil
}

// Timeout bounds one step: at most two provider calls (10 s each) and two transactions.
func (w *fulfilWorker) Timeout(*river.Job[FulfilOrderArgs]) time.Duration { return 30 * time.Second }

var _ orders.Scheduler = (*Queue)(nil)

// ScheduleFulfilment implements orders.Scheduler: the job is inserted in the transaction t and
// becomes due at at; an order with a job already keeps that one alone.
func (q *Queue) ScheduleFulfilment(ctx context.Context, t store.Tx, orderID uuid.UUID, at time.Time) error {
	if err := q.insertTx(ctx, t, FulfilOrderArgs{OrderID: orderID}, &river.InsertOpts{ScheduledAt: at}); err != nil {
		return fmt.Errorf("schedule the fulfilment of %s: %w", orderID, err)
	}
	return nil
}
