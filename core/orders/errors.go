package orders

import (
	"errors"

	"github.com/rewardsco/rewards/core/errs"
)

var (
	// ErrOrderNotFound means no order of the caller has the id.
	ErrOrderNotFound = errs.New(errs.NotFound, "ORDER_NOT_FOUND", "order not found")
	// ErrBudgetExceeded means the purchase would take the game's purchases of the day past the
	// budget the operator set for the environment.
	ErrBudgetExceeded = errs.New(errs.RateLimited, "PURCHASE_BUDGET_EXCEEDED", "this game's purchases for today have reached their budget; try again tomorrow (UTC)")
	// ErrCooldown means the player bought this reward too recently.
	ErrCooldown = errs.New(errs.Invalid, "PURCHASE_COOLDOWN", "a code was already requested for this offer; wait before requesting another")
	// ErrOutOfStock means nothing is left to deliver.
	ErrOutOfStock = errs.New(errs.Invalid, "OUT_OF_STOCK", "this reward is out of stock")
	// ErrDenominationNotAvailable means the face value asked for is not offered.
	ErrDenominationNotAvailable = errs.New(errs.Invalid, "DENOMINATION_NOT_AVAILABLE", "this denomination is not available for this reward")
	// ErrRewardExpired means the reward's end date has passed.
	ErrRewardExpired = errs.New(errs.Invalid, "REWARD_EXPIRED", "this reward has expired")
	// ErrAddressRequired means a physical good needs one of the player's addresses.
	ErrAddressRequired = errs.New(errs.Invalid, "ADDRESS_REQUIRED", "a physical reward needs addressId: one of the player's gcommerce addresses (India only)")
	// ErrIllegalTransition means a move the state machine forbids was attempted: a bug.
	ErrIllegalTransition = errs.New(errs.Internal, "ILLEGAL_TRANSITION", "illegal order transition")
)

// ErrClientOrderTaken means another order of the partner already has the clientOrderId (a
// concurrent placement won): the caller reads that order instead.
var ErrClientOrderTaken = errs.New(errs.Conflict, "CLIENT_ORDER_ID_TAKEN", "an order with this clientOrderId already exists")

// ErrAwaitingOperator means a provider order has had no final answer for GiveUpAfter past its
// deadline: it is asked no more, neither delivered nor refunded, until an operator settles it
// with the provider. It is an alert, not a failure of the order.
var ErrAwaitingOperator = errors.New("the voucher provider gave no final answer a day past the order's deadline: it waits for an operator")
