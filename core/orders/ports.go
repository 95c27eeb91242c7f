package orders

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/store"
	"github.com/rewardsco/rewards/core/studio"
)

// Repo is the storage the orders module needs.
type Repo interface {
	// Insert creates o with its first transition (to o.Status) and returns it with its id. The
	// moves in then, when given, are made at once by the same transaction: the order is stored
	// in the last one's status, with every transition (no second write of the order). In a
	// transaction, an o.CreatedAt that is set (the transaction's time, as an earlier step
	// answered it) is the order's, and a refusal may come as the transaction's (see store.Tx on
	// refusals).
	Insert(ctx context.Context, o Order, reason string, then ...Step) (Order, error)
	// Move changes an order's status from one to another, recording the transition, and sets
	// refundTxID and the failure reason when given; moved is false (and nothing changes) when
	// the order is no longer in from, so two workers racing on one order apply a move once.
	Move(ctx context.Context, id uuid.UUID, from, to Status, reason string, refundTxID *uuid.UUID) (moved bool, err error)
	// Advance is Move for a step that expects the order in from: when it is not, because
	// another worker moved it first, the transaction fails with ErrMovedElsewhere (see
	// store.Tx on refusals) and nothing of it is kept.
	Advance(ctx context.Context, id uuid.UUID, from, to Status, reason string) error
	// AddCodes stores an order's codes.
	AddCodes(ctx context.Context, id uuid.UUID, codes []SealedCode) error
	// Get returns an order with its codes, or ErrOrderNotFound.
	Get(ctx context.Context, id uuid.UUID) (Order, error)
	// ListForPlayer returns a page of a player's orders, newest first, and the total;
	// rewardID nil means every reward.
	ListForPlayer(ctx context.Context, playerID uuid.UUID, rewardID *uuid.UUID, limit, offset int) ([]Order, int64, error)
	// Transitions returns an order's history, oldest first.
	Transitions(ctx context.Context, id uuid.UUID) ([]Transition, error)
	// CheckPlan checks, in a transaction, that a purchase planned from memory still holds:
	// the catalogue's version is still version and the game's coin still worth coinsPerUnit.
	// When it does not, the transaction fails with ErrPlanMoved (see store.Tx on refusals),
	// and no later step of it acts on the stale plan.
	CheckPlan(ctx context.Context, gameID, coinID uuid.UUID, coinsPerUnit, version int64) error
	// Charge takes what a store purchase pays with, in its transaction: it debits c.Debit from
	// the player (a PURCHASE_DEBIT with its COINS_DEBITED event, by coins.Repo.ApplyMovement's
	// rules and refusals) and, for a coupon, takes its codes (c.Coupon). The debit's refusal
	// is answered before the codes'.
	Charge(ctx context.Context, c Charge) (Charged, error)
	// LockPlayerReward serialises purchases of one reward by one player until the transaction
	// ends, so that a cooldown holds under concurrency; it also holds off a change of the game's
	// purchase budget until then (SpendBudget), and must come before SpendBudget.
	LockPlayerReward(ctx context.Context, gameID, playerID, rewardID uuid.UUID) error
	// SpendBudget adds amount to the purchase total of the game's environment on day (UTC),
	// only while it stays within the game's budget; when it would not, the transaction fails
	// with ErrBudgetExceeded (its Retry-After the next UTC day; see store.Tx on refusals) and
	// nothing of it is kept. With a budget, the day's total stays locked until the transaction
	// ends (without one, purchases need not wait for each other).
	SpendBudget(ctx context.Context, gameID uuid.UUID, env studio.Environment, day time.Time, amount money.Amount) error
	// ReturnBudget takes amount back from the purchase total of day.
	ReturnBudget(ctx context.Context, gameID uuid.UUID, env studio.Environment, day time.Time, amount money.Amount) error
	// LastPurchase returns when the player last bought the reward (failed orders aside), or nil.
	LastPurchase(ctx context.Context, playerID, rewardID uuid.UUID) (*time.Time, error)

	// FindByClientOrderID returns a partner's order by its clientOrderId, or ErrOrderNotFound.
	FindByClientOrderID(ctx context.Context, gameID uuid.UUID, env studio.Environment, clientOrderID string) (Order, error)
	// FindBySession returns the id of the order of a payment session, or ErrOrderNotFound.
	FindBySession(ctx context.Context, sessionID string) (uuid.UUID, error)
	// ListForPartner returns a page of a partner's orders of one environment, newest first, and
	// the total; an empty customerRef or clientOrderID filters nothing.
	ListForPartner(ctx context.Context, gameID uuid.UUID, env studio.Environment, customerRef, clientOrderID string, limit, offset int) ([]Order, int64, error)
	// SetPayment changes a partner order's payment status only if it is still from (and
	// records paymentID when given); moved is false otherwise.
	SetPayment(ctx context.Context, id uuid.UUID, from, to PaymentStatus, paymentID string) (moved bool, err error)
}

// Charge is what a store purchase pays with (Repo.Charge).
type Charge struct {
	// Debit is the movement of the player's coins that pays for the order.
	Debit coins.Movement
	// Coupon, when set, names the coupon whose codes the order takes.
	Coupon *CouponTake
}

// CouponTake is the take of a coupon's codes by an order: the coupon's shared code, or
// Quantity codes of its pool, each taken by one order only.
type CouponTake struct {
	RewardID, OrderID uuid.UUID
	Quantity          int
	// Shared: the reward's shared code rather than codes of its pool.
	Shared bool
}

// Charged is what Charge took: the debit's journal entry and the coupon's codes (the shared
// code once, or the pool's codes taken, fewer than asked when the pool ran short).
type Charged struct {
	Debit coins.Transaction
	Codes []catalogue.SealedCode
}

// Refunder gives back what a partner order took when it fails, inside the transaction that
// marks it FAILED: a wallet refund, or a payment refund queued for the provider.
type Refunder interface {
	RefundFailed(ctx context.Context, t store.Tx, o Order, reason string) error
}

// Scheduler queues the fulfilment jobs of the orders the voucher provider fulfils. An order the
// provider sends is stored PROCESSING without a job, and sent by the process that placed it,
// which hands it to a job only when it is not final within the wait (Service.handOver): an
// order on time costs no job. The Scheduler's side of that bargain is recovery: an open order of
// the provider (INITIATED, PROCESSING or TIMEOUT) left without a job for longer than the wait,
// because its process died or could not queue the job, gets one, unless it waits for an operator
// (ErrAwaitingOperator: GiveUpAfter past its deadline). An order has at most one job queued or
// running at a time, whoever queues it.
type Scheduler interface {
	// ScheduleFulfilment queues the order's job inside t, to run at at; an order that already
	// has one keeps it alone.
	ScheduleFulfilment(ctx context.Context, t store.Tx, orderID uuid.UUID, at time.Time) error
}
