package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

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

// pgxTx is what the postgres adapter's transactions offer to libraries that take part in them.
type pgxTx interface{ PgxTx() pgx.Tx }

// ScheduleFulfilment implements orders.Scheduler: the job is inserted in the order's own
// transaction and becomes due at at.
func (q *Queue) ScheduleFulfilment(ctx context.Context, t store.Tx, orderID uuid.UUID, at time.Time) error {
	tx, ok := t.(pgxTx)
	if !ok {
		return errors.New("jobs: the transaction is not a PostgreSQL one")
	}
	if q.client == nil {
		return errors.New("jobs: insert before Open")
	}
	if _, err := q.client.InsertTx(ctx, tx.PgxTx(), FulfilOrderArgs{OrderID: orderID}, &river.InsertOpts{ScheduledAt: at}); err != nil {
		return fmt.Errorf("schedule the fulfilment of %s: %w", orderID, err)
	}
	return nil
}
