package partner

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/orders"
)

// Order returns one of the caller's orders. A PENDING_PAYMENT order is first checked with the
// payment provider, so that a paid order whose confirmation never arrived is fulfilled now.
func (s *Service) Order(ctx context.Context, c Caller, id uuid.UUID) (orders.View, error) {
	o, err := s.orders.Repo().Get(ctx, id)
	if errs.CodeOf(err) == orders.ErrOrderNotFound.Code || (err == nil && (o.Channel != orders.Partner || o.GameID != c.GameID || o.Environment != c.Environment)) {
		return orders.View{}, ErrOrderNotFound
	}
	if err != nil {
		return orders.View{}, err
	}
	if o.Status == orders.PendingPayment {
		// At most one ask per order in PaymentCheckEvery, whoever reads (a partner polling can
		// not spend the provider's rate limit); a provider that does not answer leaves the order
		// as it is, and the expiry job settles it.
		claimed, err := s.partner.Repo().ClaimPaymentCheck(ctx, id, s.cfg.PaymentCheckEvery)
		if err != nil {
			return orders.View{}, err
		}
		if claimed {
			askCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
			_ = s.Reconcile(askCtx, id)
			cancel()
			if o, err = s.orders.Repo().Get(ctx, id); err != nil {
				return orders.View{}, err
			}
		}
	}
	return s.fulfil.Open(o)
}

// Orders returns a page of the caller's orders, newest first, and the total.
func (s *Service) Orders(ctx context.Context, c Caller, customerRef, clientOrderID string, limit, offset int) ([]orders.View, int64, error) {
	list, total, err := s.orders.Repo().ListForPartner(ctx, c.GameID, c.Environment, customerRef, clientOrderID, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	out := make([]orders.View, len(list))
	for i, o := range list {
		if out[i], err = s.fulfil.Open(o); err != nil {
			return nil, 0, err
		}
	}
	return out, total, nil
}

func (s *Service) view(ctx context.Context, id uuid.UUID) (orders.View, error) {
	o, err := s.orders.Repo().Get(ctx, id)
	if err != nil {
		return orders.View{}, err
	}
	return s.fulfil.Open(o)
}
