package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/store"
)

// QueueOrders is the queue order fulfilment runs on.
const QueueOrders = "orders"

// FulfilOrderArgs asks for the next step of an order the voucher provider fulfils.
type FulfilOrderArgs struct {
	OrderID uuid.UUID `json:"order_id"`
}

// Kind implements river.JobArgs.
func (FulfilOrderArgs) Kind() string { return "fulfil_order" }

// InsertOpts implements river.JobArgsWithInsertOpts. Polling the provider snoozes the job,
// which spends no attempt; attempts count unexpected errors (the database or the provider
// down), retried with River's backoff.
func (FulfilOrderArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueOrders, MaxAttempts: 25}
}

// OrderFulfiller advances an order by one step and says when to ask again (zero: final);
// orders.Service implements it.
type OrderFulfiller interface {
	Fulfil(ctx context.Context, id uuid.UUID) (time.Duration, error)
}

// RegisterOrders registers the orders module's fulfilment worker.
func RegisterOrders(q *Queue, f OrderFulfiller) {
	Register(q, QueueOrders, &fulfilWorker{f: f})
}

type fulfilWorker struct {
	river.WorkerDefaults[FulfilOrderArgs]
	f OrderFulfiller
}

// Work makes one step and snoozes the job until the next one is due.
func (w *fulfilWorker) Work(ctx context.Context, job *river.Job[FulfilOrderArgs]) error {
	next, err := w.f.Fulfil(ctx, job.Args.OrderID)
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

// pgxTx is what the postgres adapter's transactions offer to libraries that take part in it.
type pgxTx interface{ PgxTx() pgx.Tx }

// deferringTx is a transaction that can send a statement with its next one or its COMMIT (the
// postgres adapter's Defer).
type deferringTx interface {
	Defer(sql string, args ...any)
}

// ScheduleFulfilment implements orders.Scheduler: the job is inserted in the order's own
// transaction and becomes due at at; its id (for DropFulfilment) and its creation time, as
// River stored it (the transaction's time, now(), unless River's clock is stubbed), are returned.
func (q *Queue) ScheduleFulfilment(ctx context.Context, t store.Tx, orderID uuid.UUID, at time.Time) (orders.Scheduled, error) {
	tx, ok := t.(pgxTx)
	if !ok {
		return orders.Scheduled{}, errors.New("jobs: the transaction is not a PostgreSQL one")
	}
	if q.client == nil {
		return orders.Scheduled{}, errors.New("jobs: insert before Open")
	}
	res, err := q.client.InsertTx(ctx, tx.PgxTx(), FulfilOrderArgs{OrderID: orderID}, &river.InsertOpts{ScheduledAt: at})
	if err != nil {
		return orders.Scheduled{}, fmt.Errorf("schedule the fulfilment of %s: %w", orderID, err)
	}
	return orders.Scheduled{Job: res.Job.ID, Created: res.Job.CreatedAt}, nil
}

// dropFulfilment deletes a fulfilment job that no worker has taken. A job being fetched is
// locked by the fetch (FOR UPDATE SKIP LOCKED): the delete then waits for it and finds it
// running, which it leaves alone.
const dropFulfilment = `DELETE FROM river_job WHERE id = $1 AND kind = 'fulfil_order' AND state IN ('scheduled', 'available')`

// DropFulfilment implements orders.Scheduler: the delete travels with the transaction's next
// statement or its COMMIT, so it costs no round trip; a job already taken (or gone) is left as
// it is.
func (q *Queue) DropFulfilment(_ context.Context, t store.Tx, jobID int64) error {
	tx, ok := t.(deferringTx)
	if !ok {
		return errors.New("jobs: the transaction is not a PostgreSQL one")
	}
	tx.Defer(dropFulfilment, jobID)
	return nil
}
