// Package ordertest is the contract of orders.Repo's purchase steps: one suite of cases that
// every implementation passes, run on the in-memory fake (ordersfake) and on PostgreSQL
// (adapters/postgres), so that a purchase behaves the same on both.
//
// A step whose only answer is an error may report a refusal late on PostgreSQL (store.Tx): the
// cases look for a refusal in the transaction's outcome, where both sides put it, and check that
// nothing of the transaction was kept.
package ordertest

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/store"
	"github.com/rewardsco/rewards/core/store/contract"
	"github.com/rewardsco/rewards/core/studio"
)

// Harness is one orders.Repo under test, the coins storage its charges debit (on the same
// Runner), and the rows of other modules its tables refer to.
type Harness struct {
	Runner store.Runner
	Orders store.Of[orders.Repo]
	Coins  store.Of[coins.Repo]
	// NewGame returns a new game's id.
	NewGame func(t *testing.T) uuid.UUID
	// NewPlayer returns the id of a new player of the game in env.
	NewPlayer func(t *testing.T, gameID uuid.UUID, env studio.Environment) uuid.UUID
	// NewPool returns a new coupon whose pool holds codes, taken in their order.
	NewPool func(t *testing.T, codes ...string) uuid.UUID
	// NewShared returns a new coupon whose every buyer gets code.
	NewShared func(t *testing.T, code string) uuid.UUID
	// CatalogueVersion returns the catalogue's version now.
	CatalogueVersion func(t *testing.T) int64
}

// Run runs every case of the contract, each on a Harness of its own from open.
func Run(t *testing.T, open func(t *testing.T) Harness) {
	contract.Run(t, func(t *testing.T) bundle { return setup(t, open) }, cases)
}

// bundle is a case's harness with a game, a coin, a player with 100 coins and a pool of three
// codes of its own.
type bundle struct {
	Harness
	ctx    context.Context
	game   uuid.UUID
	coin   coins.Coin
	player uuid.UUID
	pool   uuid.UUID
}

func setup(t *testing.T, open func(t *testing.T) Harness) bundle {
	h := open(t)
	b := bundle{Harness: h, ctx: context.Background(), game: h.NewGame(t)}
	c, err := h.Coins.Repo().CreateCoin(b.ctx, coins.Coin{GameID: b.game, Name: "Gems", ImageURL: "https://cdn.example.com/gems.png",
		CoinsPerUnit: coins.DefaultCoinsPerUnit})
	require.NoError(t, err)
	b.coin = c
	b.player = h.NewPlayer(t, b.game, studio.Test)
	m := b.movement(100)
	m.Reason = coins.ReasonGameCredit
	_, err = h.Coins.Repo().ApplyMovement(b.ctx, m, coins.Credit, coins.EventCredited)
	require.NoError(t, err)
	b.pool = h.NewPool(t, "CODE-1", "CODE-2", "CODE-3")
	return b
}

func (b bundle) movement(amount int64) coins.Movement {
	return coins.Movement{GameID: b.game, Environment: studio.Test, PlayerID: b.player, UserUUID: b.player.String(),
		CoinID: b.coin.ID, Amount: amount, Reason: orders.ReasonPurchaseDebit, ReferenceID: uuid.NewString()}
}

// charge is a purchase's charge of amount coins and n codes of the reward.
func (b bundle) charge(amount int64, reward uuid.UUID, n int, shared bool) orders.Charge {
	return orders.Charge{Debit: b.movement(amount),
		Coupon: &orders.CouponTake{RewardID: reward, OrderID: uuid.New(), Quantity: n, Shared: shared}}
}

// inTx runs fn on the orders repository of one transaction.
func (b bundle) inTx(fn func(r orders.Repo) error) error {
	return b.Runner.InTx(b.ctx, func(t store.Tx) error { return fn(b.Orders.WithTx(t)) })
}

func (b bundle) balance(t *testing.T) int64 {
	t.Helper()
	funds, err := b.Coins.Repo().Funds(b.ctx, b.game, b.player)
	require.NoError(t, err)
	for _, f := range funds {
		if f.Coin.ID == b.coin.ID {
			return f.Balance
		}
	}
	return 0
}

func (b bundle) journal(t *testing.T) int64 {
	t.Helper()
	_, total, err := b.Coins.Repo().ListTransactions(b.ctx, b.player, nil, 1, 0)
	require.NoError(t, err)
	return total
}

// order is a store order of the bundle's player for reward, not yet stored.
func (b bundle) order(reward uuid.UUID) orders.Order {
	return orders.Order{ID: uuid.New(), Channel: orders.Store, GameID: b.game, Environment: studio.Test, PlayerID: b.player,
		UserRef: b.player.String(), RewardID: reward, RewardType: catalogue.Coupon, CoinID: b.coin.ID, Status: orders.Initiated,
		Denomination: money.Amount(100), Quantity: 1, FaceValue: money.Amount(100), CoinsSpent: 10,
		DeadlineAt: time.Now().Add(time.Hour)}
}

func codes(list []catalogue.SealedCode) []string {
	out := make([]string, len(list))
	for i, c := range list {
		out[i] = string(c.Code)
	}
	return out
}

var cases = []contract.Case[bundle]{
	{Name: "ChargeDebitsAndTakesThePoolsCodes", Run: func(t *testing.T, b bundle) {
		var first, second orders.Charged
		require.NoError(t, b.inTx(func(r orders.Repo) (err error) {
			first, err = r.Charge(b.ctx, b.charge(30, b.pool, 2, false))
			return err
		}))
		require.Equal(t, int64(70), first.Debit.BalanceAfter)
		require.Equal(t, coins.Debit, first.Debit.Type)
		require.EqualValues(t, 30, first.Debit.Amount)
		require.NotEqual(t, uuid.Nil, first.Debit.ID)
		require.False(t, first.Debit.CreatedAt.IsZero(), "the debit says the transaction's time")
		require.Len(t, first.Codes, 2)
		require.NoError(t, b.inTx(func(r orders.Repo) (err error) {
			second, err = r.Charge(b.ctx, b.charge(5, b.pool, 2, false))
			return err
		}))
		require.Len(t, second.Codes, 1, "the pool ran short: fewer codes, no error")
		require.ElementsMatch(t, []string{"CODE-1", "CODE-2", "CODE-3"}, append(codes(first.Codes), codes(second.Codes)...),
			"each code goes to one order only")
		require.Equal(t, int64(65), b.balance(t))
	}},
	{Name: "RefusedDebitAnswersBeforeTheCodesAndKeepsNothing", Run: func(t *testing.T, b bundle) {
		err := b.inTx(func(r orders.Repo) error {
			_, err := r.Charge(b.ctx, b.charge(101, b.pool, 1, false))
			return err
		})
		require.ErrorIs(t, err, coins.ErrInsufficientBalance)
		require.Equal(t, int64(100), b.balance(t))
		require.EqualValues(t, 1, b.journal(t))
		var again orders.Charged
		require.NoError(t, b.inTx(func(r orders.Repo) (err error) {
			again, err = r.Charge(b.ctx, b.charge(10, b.pool, 3, false))
			return err
		}))
		require.Len(t, again.Codes, 3, "the refused charge's codes went back to the pool")
	}},
	{Name: "ChargeOfASharedCoupon", Run: func(t *testing.T, b bundle) {
		shared := b.NewShared(t, "SHARED-1")
		var got orders.Charged
		require.NoError(t, b.inTx(func(r orders.Repo) (err error) {
			got, err = r.Charge(b.ctx, b.charge(10, shared, 3, true))
			return err
		}))
		require.Equal(t, []string{"SHARED-1"}, codes(got.Codes), "the shared code once, whatever the quantity")
		err := b.inTx(func(r orders.Repo) error {
			_, err := r.Charge(b.ctx, b.charge(10, b.pool, 1, true))
			return err
		})
		require.ErrorIs(t, err, catalogue.ErrRewardNotFound, "a coupon without a shared code")
		require.Equal(t, int64(90), b.balance(t))
	}},
	{Name: "PlanThatHoldsLetsThePurchaseGoOn", Run: func(t *testing.T, b bundle) {
		require.NoError(t, b.inTx(func(r orders.Repo) error {
			if err := r.CheckPlan(b.ctx, b.game, b.coin.ID, b.coin.CoinsPerUnit, b.CatalogueVersion(t)); err != nil {
				return err
			}
			_, err := r.Charge(b.ctx, b.charge(10, b.pool, 1, false))
			return err
		}))
		require.Equal(t, int64(90), b.balance(t))
	}},
	{Name: "StalePlanFailsTheTransaction", Run: func(t *testing.T, b bundle) {
		version := b.CatalogueVersion(t)
		for name, check := range map[string][2]int64{
			"the catalogue moved":    {b.coin.CoinsPerUnit, version + 1},
			"the coin's value moved": {b.coin.CoinsPerUnit + 1, version},
		} {
			err := b.inTx(func(r orders.Repo) error {
				if err := r.CheckPlan(b.ctx, b.game, b.coin.ID, check[0], check[1]); err != nil {
					return err
				}
				if err := r.LockPlayerReward(b.ctx, b.game, b.player, b.pool); err != nil {
					return err
				}
				_, err := r.Charge(b.ctx, b.charge(10, b.pool, 1, false))
				return err
			})
			require.ErrorIs(t, err, orders.ErrPlanMoved, name)
		}
		require.Equal(t, int64(100), b.balance(t), "no step acted on the stale plan")
		require.EqualValues(t, 1, b.journal(t))
	}},
	{Name: "InsertedOrderKeepsTheTransactionsTimeAndSteps", Run: func(t *testing.T, b bundle) {
		o := b.order(b.pool)
		require.NoError(t, b.inTx(func(r orders.Repo) error {
			charged, err := r.Charge(b.ctx, b.charge(10, b.pool, 1, false))
			if err != nil {
				return err
			}
			o.DebitTxID, o.CreatedAt = &charged.Debit.ID, charged.Debit.CreatedAt
			stored, err := r.Insert(b.ctx, o, "coins debited", orders.SentStep)
			if err != nil {
				return err
			}
			require.Equal(t, orders.Processing, stored.Status)
			return r.AddCodes(b.ctx, o.ID, []orders.SealedCode{{Code: []byte("CODE-1"), Value: o.Denomination}})
		}))
		got, err := b.Orders.Repo().Get(b.ctx, o.ID)
		require.NoError(t, err)
		require.Equal(t, orders.Processing, got.Status)
		require.True(t, got.CreatedAt.Equal(o.CreatedAt), "the order takes the transaction's time the debit said")
		require.Equal(t, o.DebitTxID, got.DebitTxID)
		require.Len(t, got.Codes, 1)
		steps, err := b.Orders.Repo().Transitions(b.ctx, o.ID)
		require.NoError(t, err)
		require.Len(t, steps, 2)
		require.Nil(t, steps[0].From)
		require.Equal(t, orders.Initiated, steps[0].To)
		require.Equal(t, orders.Processing, steps[1].To)
	}},
	{Name: "AdvanceMovesOnceAndFailsTheLoser", Run: func(t *testing.T, b bundle) {
		o, err := b.Orders.Repo().Insert(b.ctx, b.order(b.pool), "coins debited", orders.SentStep)
		require.NoError(t, err)
		deliver := func() error {
			return b.inTx(func(r orders.Repo) error {
				if err := r.Advance(b.ctx, o.ID, orders.Processing, orders.Success, "issued"); err != nil {
					return err
				}
				return r.AddCodes(b.ctx, o.ID, []orders.SealedCode{{Code: []byte("ISSUED"), Value: o.Denomination}})
			})
		}
		require.NoError(t, deliver())
		require.ErrorIs(t, deliver(), orders.ErrMovedElsewhere, "the order is no longer PROCESSING")
		got, err := b.Orders.Repo().Get(b.ctx, o.ID)
		require.NoError(t, err)
		require.Equal(t, orders.Success, got.Status)
		require.Len(t, got.Codes, 1, "the loser's codes were not kept")
		steps, err := b.Orders.Repo().Transitions(b.ctx, o.ID)
		require.NoError(t, err)
		require.Len(t, steps, 3)
	}},
	{Name: "RolledBackChargeKeepsNothing", Run: func(t *testing.T, b bundle) {
		err := b.inTx(func(r orders.Repo) error {
			if _, err := r.Charge(b.ctx, b.charge(10, b.pool, 3, false)); err != nil {
				return err
			}
			return contract.ErrRollback
		})
		require.ErrorIs(t, err, contract.ErrRollback)
		require.Equal(t, int64(100), b.balance(t))
		var again orders.Charged
		require.NoError(t, b.inTx(func(r orders.Repo) (err error) {
			again, err = r.Charge(b.ctx, b.charge(10, b.pool, 3, false))
			return err
		}))
		require.Len(t, again.Codes, 3)
	}},
	{Name: "LastPurchaseLeavesFailedOrdersOut", Run: func(t *testing.T, b bundle) {
		last, err := b.Orders.Repo().LastPurchase(b.ctx, b.player, b.pool)
		require.NoError(t, err)
		require.Nil(t, last)
		ok, err := b.Orders.Repo().Insert(b.ctx, b.order(b.pool), "coins debited", orders.Step{To: orders.Success, Reason: "delivered"})
		require.NoError(t, err)
		failed, err := b.Orders.Repo().Insert(b.ctx, b.order(b.pool), "coins debited", orders.SentStep)
		require.NoError(t, err)
		refund := b.movement(10)
		refund.Reason = orders.ReasonRefundCredit
		credit, err := b.Coins.Repo().ApplyMovement(b.ctx, refund, coins.Credit, coins.EventCredited)
		require.NoError(t, err)
		moved, err := b.Orders.Repo().Move(b.ctx, failed.ID, orders.Processing, orders.Failed, "refused", &credit.ID)
		require.NoError(t, err)
		require.True(t, moved)
		require.True(t, failed.CreatedAt.After(ok.CreatedAt))
		last, err = b.Orders.Repo().LastPurchase(b.ctx, b.player, b.pool)
		require.NoError(t, err)
		require.NotNil(t, last)
		require.True(t, last.Equal(ok.CreatedAt))
	}},
}
