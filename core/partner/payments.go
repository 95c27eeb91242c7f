package partner

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/payments"
	"github.com/rewardsco/rewards/core/store"
	"github.com/rewardsco/rewards/core/studio"
)

// HandleEvent verifies and records a payment provider's webhook and queues a look at its order:
// an event seen before (by id) is acknowledged and changes nothing; the order's state is always
// taken from the provider, never from the event, so events in any order have one effect.
func (s *Service) HandleEvent(ctx context.Context, provider string, header func(string) string, body []byte) error {
	e, verified, err := s.verifyEvent(provider, header, body)
	if err != nil {
		return err
	}
	orderID, env := s.eventOrder(ctx, e, verified)
	return s.runner.InTx(ctx, func(t store.Tx) error {
		fresh, err := s.partner.WithTx(t).RecordEvent(ctx, provider, env, e, orderID)
		if err != nil || !fresh || orderID == nil || e.Type == payments.Ignored {
			return err
		}
		return s.cfg.Jobs.ScheduleReconcile(ctx, t, *orderID, s.now())
	})
}

// verifyEvent parses an event with each environment's provider of that name. Both environments'
// credentials send events to the same route: an event counts only for an order of an
// environment whose secret verifies it. verified lists those environments, live first, and e
// is the event as the first of them read it.
func (s *Service) verifyEvent(provider string, header func(string) string, body []byte) (e payments.Event, verified []studio.Environment, err error) {
	err = ErrNoPaymentProvider
	for _, candidate := range []studio.Environment{studio.Live, studio.Test} {
		pay := s.payments(candidate)
		if pay == nil || pay.Name() != provider {
			continue
		}
		parsed, perr := pay.ParseEvent(header, body, s.now())
		if perr != nil {
			err = perr
			continue
		}
		if len(verified) == 0 {
			e = parsed
		}
		verified = append(verified, candidate)
	}
	if len(verified) == 0 {
		return payments.Event{}, nil, err
	}
	return e, verified, nil
}

// eventOrder returns the order a verified event is about, nil when none of ours is, and the
// environment the event counts for.
func (s *Service) eventOrder(ctx context.Context, e payments.Event, verified []studio.Environment) (*uuid.UUID, studio.Environment) {
	env := verified[0]
	var orderID *uuid.UUID
	if id, err := uuid.Parse(e.OrderID); err == nil {
		orderID = &id
	} else if e.SessionID != "" {
		if id, err := s.orders.Repo().FindBySession(ctx, e.SessionID); err == nil {
			orderID = &id
		}
	}
	if orderID == nil {
		return nil, env
	}
	o, err := s.orders.Repo().Get(ctx, *orderID)
	switch {
	case err != nil:
		return nil, env // not one of ours (another deployment's, or a test event)
	case slices.Contains(verified, o.Environment):
		return orderID, o.Environment
	default:
		// Verified only by the other environment's secret: a secret of one world never moves
		// an order of the other.
		return nil, env
	}
}

// payments is the payment provider of env, nil when none is configured: the test environment
// has its own and never reaches the live one.
func (s *Service) payments(env studio.Environment) payments.Provider {
	if env == studio.Live {
		return s.cfg.Payments
	}
	return s.cfg.TestPayments
}

// Reconcile brings a CASH order in line with its payment session, for the reconcile job, an
// event and a read: a paid PENDING_PAYMENT order is fulfilled; one past its expiry (or whose
// session ended) has its session ended at the provider and is REFUNDED with payment EXPIRED,
// unless the provider says it was paid after all; a payment that arrives for an order already
// REFUNDED is refunded.
func (s *Service) Reconcile(ctx context.Context, id uuid.UUID) error {
	o, err := s.orders.Repo().Get(ctx, id)
	if err != nil {
		return err
	}
	if o.Channel != orders.Partner || o.Partner.Settlement != orders.Cash {
		return nil
	}
	pay := s.payments(o.Environment)
	if pay == nil {
		return fmt.Errorf("no payment provider is configured for the %s environment", o.Environment)
	}
	switch {
	case o.Status == orders.PendingPayment:
		return s.reconcilePending(ctx, o, pay)
	case o.Partner.Payment.Status == orders.PaymentExpired:
		return s.refundLatePayment(ctx, o, pay)
	}
	return nil
}

// reconcilePending settles a PENDING_PAYMENT order by its session: paid, it is fulfilled (or
// failed and refunded when the payment does not match it); ended unpaid, or past its expiry, it
// is REFUNDED with payment EXPIRED.
func (s *Service) reconcilePending(ctx context.Context, o orders.Order, pay payments.Provider) error {
	p := o.Partner.Payment
	sess, err := pay.GetSession(ctx, p.SessionID)
	if err != nil {
		return err
	}
	if sess.Status == payments.Open && p.ExpiresAt != nil && !s.now().Before(*p.ExpiresAt) {
		if sess, err = pay.ExpireSession(ctx, p.SessionID); err != nil {
			return err
		}
	}
	switch sess.Status {
	case payments.Paid:
		if sess.Amount != o.Partner.Amount || !strings.EqualFold(sess.Currency, s.cfg.Currency) {
			return s.mismatched(ctx, o, sess, pay.Name())
		}
		return s.confirmPaid(ctx, o, sess, pay.Name())
	case payments.Expired:
		return s.runner.InTx(ctx, func(t store.Tx) error {
			repo := s.orders.WithTx(t)
			moved, err := repo.Move(ctx, o.ID, orders.PendingPayment, orders.Refunded, "payment session ended unpaid", nil)
			if err != nil || !moved {
				return err
			}
			_, err = repo.SetPayment(ctx, o.ID, orders.PaymentPending, orders.PaymentExpired, "")
			return err
		})
	}
	return nil
}

// refundLatePayment queues the refund of a payment taken after its order ended unpaid.
func (s *Service) refundLatePayment(ctx context.Context, o orders.Order, pay payments.Provider) error {
	sess, err := pay.GetSession(ctx, o.Partner.Payment.SessionID)
	if err != nil || sess.Status != payments.Paid {
		return err
	}
	return s.runner.InTx(ctx, func(t store.Tx) error {
		moved, err := s.orders.WithTx(t).SetPayment(ctx, o.ID, orders.PaymentExpired, orders.PaymentPaid, sess.PaymentID)
		if err != nil || !moved {
			return err
		}
		return s.cfg.Jobs.ScheduleRefund(ctx, t, o.ID)
	})
}

// PaymentMismatch is the failure reason of a CASH order whose payment did not match it.
const PaymentMismatch = "PAYMENT_MISMATCH"

// mismatched fails a CASH order whose provider says it was paid another amount or currency than
// the order's: nothing is fulfilled, the payment is refunded, and the operator is told (the
// error log).
func (s *Service) mismatched(ctx context.Context, o orders.Order, sess payments.Session, provider string) error {
	s.cfg.Log.ErrorContext(ctx, "a CASH order's payment does not match the order: refunded, not fulfilled",
		"order", o.ID, "provider", provider, "session", sess.ID, "paid", sess.Amount.String(), "paidCurrency", sess.Currency,
		"due", o.Partner.Amount.String(), "currency", s.cfg.Currency)
	return s.runner.InTx(ctx, func(t store.Tx) error {
		repo := s.orders.WithTx(t)
		moved, err := repo.Move(ctx, o.ID, orders.PendingPayment, orders.Failed, PaymentMismatch, nil)
		if err != nil || !moved {
			return err
		}
		if _, err := repo.SetPayment(ctx, o.ID, orders.PaymentPending, orders.PaymentPaid, sess.PaymentID); err != nil {
			return err
		}
		return s.cfg.Jobs.ScheduleRefund(ctx, t, o.ID)
	})
}

// confirmPaid moves a paid order on to fulfilment, and waits for it like a WALLET order.
func (s *Service) confirmPaid(ctx context.Context, o orders.Order, sess payments.Session, provider string) error {
	err := s.runner.InTx(ctx, func(t store.Tx) error {
		repo := s.orders.WithTx(t)
		moved, err := repo.Move(ctx, o.ID, orders.PendingPayment, orders.Initiated, "paid at "+provider, nil)
		if err != nil || !moved {
			return err
		}
		if _, err := repo.SetPayment(ctx, o.ID, orders.PaymentPending, orders.PaymentPaid, sess.PaymentID); err != nil {
			return err
		}
		return s.cfg.OrderJobs.ScheduleFulfilment(ctx, t, o.ID, s.now().Add(s.fulfil.Wait()))
	})
	if err != nil {
		return err
	}
	s.fulfil.FulfilWithin(ctx, o.ID)
	return nil
}
