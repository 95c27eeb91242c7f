package jobs

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"

	"github.com/rewardsco/rewards/core/store"
)

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
type PurgePartnerTokensArgs struct{ maintenanceJob }

// Kind implements river.JobArgs.
func (PurgePartnerTokensArgs) Kind() string { return "purge_partner_tokens" }

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
	// A look makes a few provider calls and waits for a fulfilment.
	Register(q, QueuePayments, &paymentWorker[ReconcilePaymentArgs]{p: p, do: PartnerPayments.Reconcile,
		what: "reconcile the payment of", timeout: 40 * time.Second})
	Register(q, QueuePayments, &paymentWorker[RefundPaymentArgs]{p: p, do: PartnerPayments.RefundPayment, what: "refund the payment of"})
	Register(q, QueueMaintenance, &purgeWorker[PurgePartnerTokensArgs]{what: "expired partner tokens", log: log, opts: everyBatch,
		purge: func(ctx context.Context, _ time.Duration, batch int) (int64, bool, error) {
			return p.PurgeTokens(ctx, batch)
		}})
	q.every(PurgeInterval, PurgePartnerTokensArgs{})
}

// paymentWorker works the jobs of args T, which name an order, with the call do of p; what
// names the work in its error ("refund the payment of"). A zero timeout is the queue's
// JobTimeout.
type paymentWorker[T interface {
	river.JobArgs
	order() uuid.UUID
}] struct {
	river.WorkerDefaults[T]
	p       PartnerPayments
	do      func(p PartnerPayments, ctx context.Context, orderID uuid.UUID) error
	what    string
	timeout time.Duration
}

func (w *paymentWorker[T]) Work(ctx context.Context, job *river.Job[T]) error {
	if err := w.do(w.p, ctx, job.Args.order()); err != nil {
		return fmt.Errorf("%s %s: %w", w.what, job.Args.order(), err)
	}
	return nil
}

// Timeout implements river.Worker.
func (w *paymentWorker[T]) Timeout(*river.Job[T]) time.Duration { return w.timeout }

func (a ReconcilePaymentArgs) order() uuid.UUID { return a.OrderID }

func (a RefundPaymentArgs) order() uuid.UUID { return a.OrderID }

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
