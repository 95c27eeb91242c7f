package partner

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/payments"
	"github.com/rewardsco/rewards/core/store"
)

// RefundPayment gives back the payment of a CASH order that was paid but not fulfilled (FAILED,
// or REFUNDED after its session expired), for the refund job; the provider refunds once per
// order whatever the retries.
func (s *Service) RefundPayment(ctx context.Context, id uuid.UUID) error {
	o, err := s.orders.Repo().Get(ctx, id)
	if err != nil {
		return err
	}
	if o.Channel != orders.Partner || o.Partner.Payment.Status != orders.PaymentPaid || (o.Status != orders.Failed && o.Status != orders.Refunded) {
		return nil
	}
	pay := s.payments(o.Environment)
	if pay == nil {
		return fmt.Errorf("no payment provider is configured for the %s environment", o.Environment)
	}
	p := o.Partner.Payment
	if p.PaymentID == "" {
		sess, err := pay.GetSession(ctx, p.SessionID)
		if err != nil {
			return err
		}
		p.PaymentID = sess.PaymentID
	}
	if _, err := pay.Refund(ctx, payments.RefundRequest{SessionID: p.SessionID, PaymentID: p.PaymentID,
		Amount: o.Partner.Amount, Reference: "rf" + strings.ReplaceAll(o.ID.String(), "-", ""), Reason: "order " + string(o.Status)}); err != nil {
		return err
	}
	return s.runner.InTx(ctx, func(t store.Tx) error {
		_, err := s.orders.WithTx(t).SetPayment(ctx, o.ID, orders.PaymentPaid, orders.PaymentRefunded, "")
		return err
	})
}

// Refunds gives back what a failed partner order took, for the orders saga (orders.Refunder).
type Refunds struct {
	Partner store.Of[Repo]
	Jobs    Jobs
}

// RefundFailed implements orders.Refunder: a WALLET order's debit is credited back (once); a
// paid CASH order's payment refund is queued.
func (r Refunds) RefundFailed(ctx context.Context, t store.Tx, o orders.Order, reason string) error {
	if o.Partner == nil {
		return errors.New("not a partner order")
	}
	if o.Partner.Settlement == orders.Cash {
		if o.Partner.Payment.Status == orders.PaymentPaid {
			return r.Jobs.ScheduleRefund(ctx, t, o.ID)
		}
		return nil
	}
	wallet := r.Partner.WithTx(t)
	bal, err := wallet.LockWallet(ctx, o.GameID, o.Environment)
	if err != nil {
		return err
	}
	done, err := wallet.OrderEntryExists(ctx, o.ID, Refund)
	if err != nil || done {
		return err
	}
	id := o.ID
	_, err = wallet.Apply(ctx, Entry{GameID: o.GameID, Environment: o.Environment, Kind: Refund, Amount: o.Partner.Amount,
		BalanceAfter: bal + o.Partner.Amount, OrderID: &id, Reference: ""})
	return err
}
