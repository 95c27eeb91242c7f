package ordersapi

import (
	"context"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/adapters/httpapi"
	"github.com/rewardsco/rewards/core/orders"
)

// handlers serve the orders operations: each decodes its input, makes one core call and
// encodes the answer.
type handlers struct{ svc *orders.Service }

// purchase buys a reward, marking a replayed answer, or a replayed refusal, as such.
func (h handlers) purchase(ctx context.Context, in *purchaseInput) (*purchaseOutput, error) {
	p, err := in.purchase(ctx)
	if err != nil {
		return nil, err
	}
	v, replayed, err := h.svc.Buy(ctx, p)
	if err != nil {
		return nil, httpapi.IdempotentError(ctx, err, replayed)
	}
	out := &purchaseOutput{Body: toPlayerOrderBody(v)}
	if replayed {
		out.Replay = "true"
	}
	return out, nil
}

// listOrders pages the player's orders; a malformed rewardId matches no order, so the page is
// empty without asking the core.
func (h handlers) listOrders(ctx context.Context, in *listOrdersInput) (*playerOrdersOutput, error) {
	rewardID, ok := in.rewardFilter()
	if !ok {
		return &playerOrdersOutput{Body: httpapi.PageOf(in.PageQuery, []orders.View(nil), 0, toPlayerOrderBody)}, nil
	}
	list, total, err := h.svc.PlayerOrders(ctx, httpapi.PlayerFrom(ctx).ID, rewardID, in.Limit, in.Offset())
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	return &playerOrdersOutput{Body: httpapi.PageOf(in.PageQuery, list, total, toPlayerOrderBody)}, nil
}

func (h handlers) getOrder(ctx context.Context, in *getOrderInput) (*playerOrderOutput, error) {
	id, err := httpapi.ParseID(in.OrderID, orders.ErrOrderNotFound)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	v, err := h.svc.PlayerOrder(ctx, httpapi.PlayerFrom(ctx).ID, id)
	return httpapi.Reply(ctx, v, err, toPlayerOrderBody)
}

// verify answers false for a malformed id, as for an unknown one: the operation never 404s.
func (h handlers) verify(ctx context.Context, in *orderIDInput) (*verifyOutput, error) {
	id, err := uuid.Parse(in.OrderID)
	if err != nil {
		return &verifyOutput{Body: false}, nil
	}
	ok, err := h.svc.Verify(ctx, httpapi.CallerFrom(ctx), id)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	return &verifyOutput{Body: ok}, nil
}

func (h handlers) adminGetOrder(ctx context.Context, in *orderIDInput) (*adminOrderOutput, error) {
	id, err := httpapi.ParseID(in.OrderID, orders.ErrOrderNotFound)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	o, history, err := h.svc.History(ctx, id)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	return &adminOrderOutput{Body: toAdminOrderBody(o, history)}, nil
}
