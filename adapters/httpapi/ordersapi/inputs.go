package ordersapi

import (
	"context"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/adapters/httpapi"
	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/orders"
)

// ---- Inputs ----

type purchaseInput struct {
	IdempotencyKey string `header:"X-Idempotency-Key" maxLength:"255" doc:"Optional, 1 to 255 characters: the same key with the same body replays the first answer (x-idempotent-replay: true); with another body 422 IDEMPOTENCY_KEY_REUSED; while the first is running 409 IDEMPOTENCY_IN_PROGRESS. Kept 24 hours, per player." example:"purchase-7f3a9c"`
	httpapi.GameUUIDHeader
	Body PurchaseBody
}

// ReadParams are the version and language parameters the player's order reads accept; embed it
// in an input. The spec requires x-language, though an order has nothing to translate. It is
// exported because Huma skips the fields of an unexported embedded struct.
type ReadParams struct {
	APIVersion       string `query:"api-version" maxLength:"16" doc:"Accepted; the answer is the same for every version"`
	Language         string `header:"X-Language" required:"true" pattern:"^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$" doc:"Language tag, e.g. en or hi" example:"en"`
	APIVersionHeader string `header:"X-Api-Version" maxLength:"16" doc:"Accepted; the answer is the same for every version"`
	httpapi.GameUUIDHeader
}

type listOrdersInput struct {
	RewardID string `query:"rewardId" doc:"Only the orders of this reward; an id that names no reward (malformed included) gives an empty page"`
	httpapi.PageQuery
	ReadParams
}

type getOrderInput struct {
	OrderID string `path:"orderId" doc:"Order id"`
	ReadParams
}

type orderIDInput struct {
	OrderID string `path:"orderId" doc:"Order id"`
}

// ---- Outputs ----

type (
	purchaseOutput struct {
		Replay string `header:"X-Idempotent-Replay" doc:"true when this answer replays an earlier purchase with the same idempotency key"`
		Body   PlayerOrderBody
	}
	playerOrderOutput  = httpapi.Output[PlayerOrderBody]
	playerOrdersOutput = httpapi.Output[httpapi.Page[PlayerOrderBody]]
	verifyOutput       = httpapi.Output[bool]
	adminOrderOutput   = httpapi.Output[AdminOrderBody]
)

// ---- Decoding: transport values into core values ----

// purchase decodes a purchase for the request's caller and player. The denomination is checked
// first, as Huma checks the rest of the body before the handler runs: a bad body is a 400
// whatever its ids. A malformed id is then the 404 of its kind, as an unknown one is.
func (in *purchaseInput) purchase(ctx context.Context) (orders.Purchase, error) {
	var denomination *money.Amount
	if in.Body.Denomination != nil {
		a, err := money.FromUnits(*in.Body.Denomination)
		if err != nil {
			return orders.Purchase{}, httpapi.ValidationError(ctx, "body.denomination",
				"must be an amount of money in units from 0 to 1e12 with at most two decimals", *in.Body.Denomination)
		}
		denomination = &a
	}
	rewardID, err := httpapi.ParseID(in.Body.RewardID, catalogue.ErrRewardNotFound)
	if err != nil {
		return orders.Purchase{}, httpapi.ErrorFrom(ctx, err)
	}
	coinID, err := httpapi.ParseID(in.Body.CoinID, coins.ErrCoinNotFound)
	if err != nil {
		return orders.Purchase{}, httpapi.ErrorFrom(ctx, err)
	}
	return orders.Purchase{
		Caller: httpapi.CallerFrom(ctx), Player: httpapi.PlayerFrom(ctx),
		RewardID: rewardID, CoinID: coinID, Denomination: denomination, Quantity: in.Body.Quantity,
		AddressID: in.Body.AddressID, IdempotencyKey: in.IdempotencyKey,
	}, nil
}

// rewardFilter decodes the rewardId filter: nil for every reward; ok is false when the id is
// malformed, which no order can match.
func (in *listOrdersInput) rewardFilter() (id *uuid.UUID, ok bool) {
	if in.RewardID == "" {
		return nil, true
	}
	parsed, err := uuid.Parse(in.RewardID)
	if err != nil {
		return nil, false
	}
	return &parsed, true
}
