package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"

	"github.com/rewardsco/rewards/core/store"
)

// QueuePayments is the queue partner payment jobs run on.
const QueuePayments = "payments"

// ReconcilePaymentArgs asks for a CASH order to be brought in line with its payment session: at
// its expiry, and after each provider event.
type ReconcilePaymentArgs struct {
	OrderID uuid.UUID `json:"order_id"`
}

// Kind implements river.JobArgs.
func (ReconcilePaymentArgs) Kind() string { return "reconcile_payment" }

// InsertOpts implements river.JobArgsWithInsertOpts: errors (the provider down) are retried
// with River's backoff for about a day.
func (ReconcilePaymentArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueuePayments, MaxAttempts: 20}
}

// RefundPaymentArgs asks for the payment of a CASH order that was not fulfilled to be refunded.
type RefundPaymentArgs struct {
	OrderID uuid.UUID `json:"order_id"`
}

// Kind implements river.JobArgs.
func (RefundPaymentArgs) Kind() string { return "refund_payment" }

// InsertOpts implements river.JobArgsWithInsertOpts.
func (RefundPaymentArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueuePayments, MaxAttempts: 25}
}

// PurgePartnerTokensArgs asks for expired partner tokens to be deleted.
type PurgePartnerTokensArgs struct{}

// Kind implements river.JobArgs.
func (PurgePartnerTokensArgs) Kind() string { return "purge_partner_tokens" }

// InsertOpts implements river.JobArgsWithInsertOpts.
func (PurgePartnerTokensArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueMaintenance, MaxAttempts: 3}
}

// PartnerPayments is what the partner jobs call; partner.Service implements it.
type PartnerPayments interface {
	Reconcile(ctx context.Context, orderID uuid.UUID) error
	RefundPayment(ctx context.Context, orderID uuid.UUID) error
	// PurgeTokens deletes at most batch expired tokens; more reports that a full batch went.
	PurgeTokens(ctx context.Context, batch int) (deleted int64, more bool, err error)
}

// RegisterPartner registers the partner module's workers: payment reconciliation and refunds,
// and the hourly purge of expired tokens.
func RegisterPartner(q *Queue, p PartnerPayments, log *slog.Logger) {
	Register(q, QueuePayments, &reconcileWorker{p: p})
	Register(q, QueuePayments, &refundWorker{p: p})
	Register(q, QueueMaintenance, &purgeWorker[PurgePartnerTokensArgs]{what: "expired partner tokens", log: log, opts: everyBatch,
		purge: func(ctx context.Context, _ time.Duration, batch int) (int64, bool, error) {
			return p.PurgeTokens(ctx, batch)
		}})
	addHourly(q, PurgePartnerTokensArgs{})
}

type reconcileWorker struct {
	river.WorkerDefaults[ReconcilePaymentArgs]
	p PartnerPayments
}

func (w *reconcileWorker) Work(ctx context.Context, job *river.Job[ReconcilePaymentArgs]) error {
	if err := w.p.Reconcile(ctx, job.Args.OrderID); err != nil {
		return fmt.Errorf("reconcile the payment of %s: %w", job.Args.OrderID, err)
	}
	return nil
}

// Timeout bounds one look: a few provider calls and a fulfilment's wait.
func (w *reconcileWorker) Timeout(*river.Job[ReconcilePaymentArgs]) time.Duration {
	return 40 * time.Second
}

type refundWorker struct {
	river.WorkerDefaults[RefundPaymentArgs]
	p PartnerPayments
}

func (w *refundWorker) Work(ctx context.Context, job *river.Job[RefundPaymentArgs]) error {
	if err := w.p.RefundPayment(ctx, job.Args.OrderID); err != nil {
		return fmt.Errorf("refund the payment of %s: %w", job.Args.OrderID, err)
	}
	return nil
}

// insertTx inserts a job in the caller's transaction.
func (q *Queue) insertTx(ctx context.Context, t store.Tx, args river.JobArgs, opts *river.InsertOpts) error {
	tx, ok := t.(pgxTx)
	if !ok {
		return errors.New("jobs: the transaction is not a PostgreSQL one")
	}
	if q.client == nil {
		return errors.New("jobs: insert before Open")
	}
	_, err := q.client.InsertTx(ctx, tx.PgxTx(), args, opts)
	return err
}

// ReconcileWindow is the window in which one order's payment is looked at once, however many
// events arrive.
const ReconcileWindow = 10 * time.Second

// ScheduleReconcile implements partner.Jobs.
func (q *Queue) ScheduleReconcile(ctx context.Context, t store.Tx, orderID uuid.UUID, at time.Time) error {
	// One look per order in any 10 s (by its scheduled time): a burst of provider events for
	// one order queues one job, and so spends one provider call, not one each. The look at
	// expiry falls in another window, so events never wait for it.
	opts := &river.InsertOpts{ScheduledAt: at, UniqueOpts: river.UniqueOpts{ByArgs: true, ByPeriod: ReconcileWindow}}
	if err := q.insertTx(ctx, t, ReconcilePaymentArgs{OrderID: orderID}, opts); err != nil {
		return fmt.Errorf("schedule a payment look at %s: %w", orderID, err)
	}
	return nil
}

// ScheduleRefund implements partner.Jobs.
func (q *Queue) ScheduleRefund(ctx context.Context, t store.Tx, orderID uuid.UUID) error {
	if err := q.insertTx(ctx, t, RefundPaymentArgs{OrderID: orderID}, nil); err != nil {
		return fmt.Errorf("schedule the refund of %s: %w", orderID, err)
	}
	return nil
}
