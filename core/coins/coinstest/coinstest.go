// Package coinstest is the contract of coins.Repo: one suite of cases that every implementation
// passes, run on the in-memory fake (coinsfake) and on PostgreSQL (adapters/postgres), so that
// core tests on the fake hold on the database too.
//
// Where the two still differ, the suite says so rather than hiding it:
//   - A movement that PostgreSQL refuses with an error of its own (a check violation, such as
//     a zero amount, which the service never sends) aborts a PostgreSQL transaction: the COMMIT
//     fails even when the caller went on. The fake refuses the movement alone and commits the
//     rest. In a transaction the suite covers only the refusals the port names
//     (ErrCoinNotFound, ErrInsufficientBalance), which leave the transaction usable on both;
//     adapters/postgres tests the abort.
//   - The fake records coin events but makes no webhook deliveries (see coinsfake), and the
//     port reads neither, so the suite does not look at them.
//   - A read outside a transaction sees the fake's uncommitted writes (memstore.Runner); the
//     suite reads committed state only.
package coinstest

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/store"
	"github.com/rewardsco/rewards/core/store/contract"
	"github.com/rewardsco/rewards/core/studio"
)

// Harness is one coins.Repo under test and the rows of other modules its tables refer to.
type Harness struct {
	Store store.Of[coins.Repo]
	// NewGame returns a new game's id.
	NewGame func(t *testing.T) uuid.UUID
	// NewPlayer returns the id of a new player of the game in env.
	NewPlayer func(t *testing.T, gameID uuid.UUID, env studio.Environment) uuid.UUID
}

// Run runs every case of the contract, each on a Harness of its own from open.
func Run(t *testing.T, open func(t *testing.T) Harness) {
	contract.Run(t, func(t *testing.T) bundle { return setup(t, open) }, cases)
}

// bundle is a case's harness with a game, a coin and a player of its own.
type bundle struct {
	Harness
	ctx    context.Context
	game   uuid.UUID
	coin   coins.Coin
	player uuid.UUID
}

func setup(t *testing.T, open func(t *testing.T) Harness) bundle {
	h := open(t)
	b := bundle{Harness: h, ctx: context.Background(), game: h.NewGame(t)}
	b.coin = b.newCoin(t, b.game, "Gems")
	b.player = h.NewPlayer(t, b.game, studio.Test)
	return b
}

func (b bundle) repo() coins.Repo { return b.Store.Repo() }

func (b bundle) newCoin(t *testing.T, gameID uuid.UUID, name string) coins.Coin {
	t.Helper()
	c, err := b.repo().CreateCoin(b.ctx, coins.Coin{GameID: gameID, Name: name, ImageURL: "https://cdn.example.com/" + name + ".png",
		CoinsPerUnit: coins.DefaultCoinsPerUnit})
	require.NoError(t, err)
	return c
}

func (b bundle) movement(amount int64) coins.Movement {
	return coins.Movement{GameID: b.game, Environment: studio.Test, PlayerID: b.player, UserUUID: b.player.String(),
		CoinID: b.coin.ID, Amount: amount, Reason: coins.ReasonGameCredit, ReferenceID: "ref-1", Description: "a test movement"}
}

func (b bundle) apply(t *testing.T, typ coins.TxType, amount int64) coins.Transaction {
	t.Helper()
	event := coins.EventCredited
	if typ == coins.Debit {
		event = coins.EventDebited
	}
	tx, err := b.repo().ApplyMovement(b.ctx, b.movement(amount), typ, event)
	require.NoError(t, err)
	return tx
}

// holding is the player's fund of the bundle's coin.
func (b bundle) holding(t *testing.T) coins.Fund {
	t.Helper()
	funds, err := b.repo().Funds(b.ctx, b.game, b.player)
	require.NoError(t, err)
	for _, f := range funds {
		if f.Coin.ID == b.coin.ID {
			return f
		}
	}
	t.Fatalf("no fund of coin %s", b.coin.ID)
	return coins.Fund{}
}

// journal is the player's whole journal, newest first.
func (b bundle) journal(t *testing.T) []coins.Transaction {
	t.Helper()
	list, total, err := b.repo().ListTransactions(b.ctx, b.player, nil, 1000, 0)
	require.NoError(t, err)
	require.Len(t, list, int(total))
	return list
}

func requireCode(t *testing.T, want *errs.Error, err error) {
	t.Helper()
	require.ErrorIs(t, err, want)
}

// requireUncoded checks err is a failure the port does not name (a broken constraint): an
// internal error, never one of the module's codes.
func requireUncoded(t *testing.T, err error) {
	t.Helper()
	require.Error(t, err)
	require.Equal(t, errs.Internal, errs.KindOf(err), "%v", err)
}

var cases = []contract.Case[bundle]{
	{Name: "CreateGetAndListCoins", Run: func(t *testing.T, b bundle) {
		second := b.newCoin(t, b.game, "Stars")
		got, err := b.repo().GetCoin(b.ctx, b.game, second.ID)
		require.NoError(t, err)
		require.Equal(t, second, got)
		require.Equal(t, "Stars", got.Name)
		require.Equal(t, int64(coins.DefaultCoinsPerUnit), got.CoinsPerUnit)
		require.False(t, got.CreatedAt.IsZero())

		list, err := b.repo().ListCoins(b.ctx, b.game)
		require.NoError(t, err)
		require.Equal(t, []coins.Coin{b.coin, second}, list, "oldest first")
		first, err := b.repo().FirstCoin(b.ctx, b.game)
		require.NoError(t, err)
		require.Equal(t, b.coin, first)

		other := b.NewGame(t)
		list, err = b.repo().ListCoins(b.ctx, other)
		require.NoError(t, err)
		require.Empty(t, list)
		_, err = b.repo().FirstCoin(b.ctx, other)
		requireCode(t, coins.ErrNoCoins, err)
	}},
	{Name: "GetCoinOfAnotherGameIsNotFound", Run: func(t *testing.T, b bundle) {
		_, err := b.repo().GetCoin(b.ctx, b.NewGame(t), b.coin.ID)
		requireCode(t, coins.ErrCoinNotFound, err)
		_, err = b.repo().GetCoin(b.ctx, b.game, uuid.New())
		requireCode(t, coins.ErrCoinNotFound, err)
	}},
	{Name: "CreateCoinRefusesAValueOutOfRange", Run: func(t *testing.T, b bundle) {
		for _, n := range []int64{0, coins.MaxCoinsPerUnit + 1} {
			_, err := b.repo().CreateCoin(b.ctx, coins.Coin{GameID: b.game, Name: "Bad", CoinsPerUnit: n})
			requireUncoded(t, err)
		}
		list, err := b.repo().ListCoins(b.ctx, b.game)
		require.NoError(t, err)
		require.Len(t, list, 1)
	}},
	{Name: "SetCoinsPerUnit", Run: func(t *testing.T, b bundle) {
		c, err := b.repo().SetCoinsPerUnit(b.ctx, b.coin.ID, 250)
		require.NoError(t, err)
		want := b.coin
		want.CoinsPerUnit = 250
		require.Equal(t, want, c)
		got, err := b.repo().GetCoin(b.ctx, b.game, b.coin.ID)
		require.NoError(t, err)
		require.Equal(t, want, got)

		for _, n := range []int64{0, coins.MaxCoinsPerUnit + 1} {
			_, err = b.repo().SetCoinsPerUnit(b.ctx, b.coin.ID, n)
			requireUncoded(t, err)
		}
		got, err = b.repo().GetCoin(b.ctx, b.game, b.coin.ID)
		require.NoError(t, err)
		require.Equal(t, int64(250), got.CoinsPerUnit, "a refused value changes nothing")

		// An unknown coin is not found, whatever the value: there is no row to check it on.
		for _, n := range []int64{5, 0} {
			_, err = b.repo().SetCoinsPerUnit(b.ctx, uuid.New(), n)
			requireCode(t, coins.ErrCoinNotFound, err)
		}
	}},
	{Name: "CreditAndDebit", Run: func(t *testing.T, b bundle) {
		m := b.movement(30)
		m.Metadata = []byte(`{"level": 3}`)
		credit, err := b.repo().ApplyMovement(b.ctx, m, coins.Credit, coins.EventCredited)
		require.NoError(t, err)
		require.NotEqual(t, uuid.Nil, credit.ID)
		require.Equal(t, coins.Transaction{ID: credit.ID, GameID: b.game, Environment: string(studio.Test), PlayerID: b.player,
			CoinID: b.coin.ID, Type: coins.Credit, Amount: 30, BalanceAfter: 30, Reason: m.Reason, ReferenceID: m.ReferenceID,
			Description: m.Description, Metadata: m.Metadata, CreatedAt: credit.CreatedAt}, credit)
		require.False(t, credit.CreatedAt.IsZero())

		debit := b.apply(t, coins.Debit, 12)
		require.Equal(t, coins.Debit, debit.Type)
		require.Equal(t, int64(18), debit.BalanceAfter)
		require.Equal(t, coins.Fund{Coin: coins.Coin{ID: b.coin.ID, GameID: b.game, Name: b.coin.Name, ImageURL: b.coin.ImageURL},
			Balance: 18, LifetimeEarned: 30, LifetimeSpent: 12}, b.holding(t))

		debit = b.apply(t, coins.Debit, 18)
		require.Equal(t, int64(0), debit.BalanceAfter, "a debit may take the balance to zero")
	}},
	{Name: "DebitBeyondTheBalanceChangesNothing", Run: func(t *testing.T, b bundle) {
		_, err := b.repo().ApplyMovement(b.ctx, b.movement(1), coins.Debit, coins.EventDebited)
		requireCode(t, coins.ErrInsufficientBalance, err) // no balance row at all
		b.apply(t, coins.Credit, 10)
		_, err = b.repo().ApplyMovement(b.ctx, b.movement(11), coins.Debit, coins.EventDebited)
		requireCode(t, coins.ErrInsufficientBalance, err)
		require.Equal(t, int64(10), b.holding(t).Balance)
		require.Equal(t, int64(0), b.holding(t).LifetimeSpent)
		require.Len(t, b.journal(t), 1, "a refused debit writes no journal entry")
	}},
	{Name: "MovementOfAnotherGamesCoinIsNotFound", Run: func(t *testing.T, b bundle) {
		m := b.movement(5)
		m.CoinID = b.newCoin(t, b.NewGame(t), "Elsewhere").ID
		for _, typ := range []coins.TxType{coins.Credit, coins.Debit} {
			_, err := b.repo().ApplyMovement(b.ctx, m, typ, coins.EventCredited)
			requireCode(t, coins.ErrCoinNotFound, err)
		}
		m.CoinID = uuid.New()
		_, err := b.repo().ApplyMovement(b.ctx, m, coins.Credit, coins.EventCredited)
		requireCode(t, coins.ErrCoinNotFound, err)
		require.Empty(t, b.journal(t))
	}},
	{Name: "NonPositiveAmountIsRefused", Run: func(t *testing.T, b bundle) {
		b.apply(t, coins.Credit, 10)
		for _, typ := range []coins.TxType{coins.Credit, coins.Debit} {
			for _, amount := range []int64{0, -5} {
				_, err := b.repo().ApplyMovement(b.ctx, b.movement(amount), typ, coins.EventCredited)
				requireUncoded(t, err)
			}
		}
		require.Equal(t, coins.Fund{Coin: b.holding(t).Coin, Balance: 10, LifetimeEarned: 10}, b.holding(t))
		require.Len(t, b.journal(t), 1)
	}},
	{Name: "FundsListEveryCoinOfTheGame", Run: func(t *testing.T, b bundle) {
		second := b.newCoin(t, b.game, "Stars")
		b.newCoin(t, b.NewGame(t), "Elsewhere")
		b.apply(t, coins.Credit, 7)
		funds, err := b.repo().Funds(b.ctx, b.game, b.player)
		require.NoError(t, err)
		require.Equal(t, []coins.Fund{
			{Coin: coins.Coin{ID: b.coin.ID, GameID: b.game, Name: b.coin.Name, ImageURL: b.coin.ImageURL}, Balance: 7, LifetimeEarned: 7},
			{Coin: coins.Coin{ID: second.ID, GameID: b.game, Name: second.Name, ImageURL: second.ImageURL}},
		}, funds, "oldest coin first, zeros where the player holds none")
	}},
	{Name: "ListTransactionsNewestFirstInPages", Run: func(t *testing.T, b bundle) {
		second := b.newCoin(t, b.game, "Stars")
		other := b.NewPlayer(t, b.game, studio.Test)
		var made []coins.Transaction
		for i := range 5 {
			m := b.movement(int64(i + 1))
			if i%2 == 1 {
				m.CoinID = second.ID
			}
			tx, err := b.repo().ApplyMovement(b.ctx, m, coins.Credit, coins.EventCredited)
			require.NoError(t, err)
			made = append([]coins.Transaction{tx}, made...)
		}
		m := b.movement(9)
		m.PlayerID = other
		_, err := b.repo().ApplyMovement(b.ctx, m, coins.Credit, coins.EventCredited)
		require.NoError(t, err)

		all := b.journal(t)
		require.Equal(t, made, all, "newest first, as ApplyMovement returned them")

		page, total, err := b.repo().ListTransactions(b.ctx, b.player, nil, 2, 1)
		require.NoError(t, err)
		require.Equal(t, int64(5), total)
		require.Equal(t, made[1:3], page)

		page, total, err = b.repo().ListTransactions(b.ctx, b.player, &second.ID, 10, 0)
		require.NoError(t, err)
		require.Equal(t, int64(2), total)
		require.Equal(t, []coins.Transaction{made[1], made[3]}, page)

		page, total, err = b.repo().ListTransactions(b.ctx, b.player, nil, 0, 0)
		require.NoError(t, err)
		require.Empty(t, page, "a zero limit lists nothing")
		require.Equal(t, int64(5), total)
		page, total, err = b.repo().ListTransactions(b.ctx, b.player, nil, 10, 5)
		require.NoError(t, err)
		require.Empty(t, page, "past the end")
		require.Equal(t, int64(5), total)

		_, _, err = b.repo().ListTransactions(b.ctx, b.player, nil, -1, 0)
		require.Error(t, err)
		_, _, err = b.repo().ListTransactions(b.ctx, b.player, nil, 10, -1)
		require.Error(t, err)
	}},
	{Name: "MetadataIsKept", Run: func(t *testing.T, b bundle) {
		m := b.movement(1)
		m.Metadata = []byte(`{"level": 3, "tags": ["a", "b"]}`)
		_, err := b.repo().ApplyMovement(b.ctx, m, coins.Credit, coins.EventCredited)
		require.NoError(t, err)
		b.apply(t, coins.Credit, 1) // and none
		list := b.journal(t)
		require.Nil(t, list[0].Metadata)
		require.JSONEq(t, string(m.Metadata), string(list[1].Metadata))
	}},
	{Name: "SavingsWithoutPurchases", Run: func(t *testing.T, b bundle) {
		b.apply(t, coins.Credit, 10)
		b.apply(t, coins.Debit, 4)
		s, err := b.repo().Savings(b.ctx, b.player, b.coin.ID)
		require.NoError(t, err)
		require.Equal(t, "0.00", s)
	}},
	{Name: "ConcurrentDebitsNeverOverdraw", Run: func(t *testing.T, b bundle) {
		b.apply(t, coins.Credit, 10)
		var wg sync.WaitGroup
		var mu sync.Mutex
		ok, short := 0, 0
		for range 16 {
			wg.Go(func() {
				_, err := b.repo().ApplyMovement(b.ctx, b.movement(1), coins.Debit, coins.EventDebited)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					ok++
				case errors.Is(err, coins.ErrInsufficientBalance):
					short++
				default:
					t.Errorf("debit: %v", err)
				}
			})
		}
		wg.Wait()
		require.Equal(t, 10, ok)
		require.Equal(t, 6, short)
		require.Equal(t, coins.Fund{Coin: b.holding(t).Coin, Balance: 0, LifetimeEarned: 10, LifetimeSpent: 10}, b.holding(t))
		require.Len(t, b.journal(t), 11)
	}},
	{Name: "ConcurrentMovementFailsAlone", Run: func(t *testing.T, b bundle) {
		// Outside a transaction each movement commits by itself, all of it or nothing, however
		// the storage groups concurrent ones: a refused movement takes no other down with it.
		var wg sync.WaitGroup
		for i := range 12 {
			wg.Go(func() {
				amount := int64(1)
				if i%6 == 0 {
					amount = 0 // refused by the journal's check
				}
				_, err := b.repo().ApplyMovement(b.ctx, b.movement(amount), coins.Credit, coins.EventCredited)
				if (err == nil) != (amount > 0) {
					t.Errorf("credit of %d: %v", amount, err)
				}
			})
		}
		wg.Wait()
		require.Equal(t, coins.Fund{Coin: b.holding(t).Coin, Balance: 10, LifetimeEarned: 10}, b.holding(t))
		require.Len(t, b.journal(t), 10)
	}},
	{Name: "TransactionSeesItsMovementsAndCommitsThem", Run: func(t *testing.T, b bundle) {
		err := b.Store.InTx(b.ctx, func(r coins.Repo) error {
			if _, err := r.ApplyMovement(b.ctx, b.movement(8), coins.Credit, coins.EventCredited); err != nil {
				return err
			}
			funds, err := r.Funds(b.ctx, b.game, b.player)
			if err != nil {
				return err
			}
			require.Equal(t, int64(8), funds[0].Balance, "the transaction sees its own movement")
			_, err = r.ApplyMovement(b.ctx, b.movement(3), coins.Debit, coins.EventDebited)
			return err
		})
		require.NoError(t, err)
		require.Equal(t, int64(5), b.holding(t).Balance)
		require.Len(t, b.journal(t), 2)
	}},
	{Name: "RollbackLeavesNothing", Run: func(t *testing.T, b bundle) {
		b.apply(t, coins.Credit, 4)
		err := b.Store.InTx(b.ctx, func(r coins.Repo) error {
			if _, err := r.ApplyMovement(b.ctx, b.movement(6), coins.Credit, coins.EventCredited); err != nil {
				return err
			}
			if _, err := r.CreateCoin(b.ctx, coins.Coin{GameID: b.game, Name: "Gone", CoinsPerUnit: 1}); err != nil {
				return err
			}
			return contract.ErrRollback
		})
		require.ErrorIs(t, err, contract.ErrRollback)
		require.Equal(t, coins.Fund{Coin: b.holding(t).Coin, Balance: 4, LifetimeEarned: 4}, b.holding(t))
		require.Len(t, b.journal(t), 1)
		list, err := b.repo().ListCoins(b.ctx, b.game)
		require.NoError(t, err)
		require.Len(t, list, 1)
	}},
	{Name: "MovementsInATransactionApplyInOrder", Run: func(t *testing.T, b bundle) {
		var first, second coins.Transaction
		err := b.Store.InTx(b.ctx, func(r coins.Repo) error {
			var err error
			if first, err = r.ApplyMovement(b.ctx, b.movement(10), coins.Credit, coins.EventCredited); err != nil {
				return err
			}
			second, err = r.ApplyMovement(b.ctx, b.movement(4), coins.Debit, coins.EventDebited)
			return err
		})
		require.NoError(t, err)
		require.Equal(t, int64(10), first.BalanceAfter)
		require.Equal(t, int64(6), second.BalanceAfter, "movements apply in the order they were made")
		require.Equal(t, coins.Debit, second.Type)
		require.Equal(t, []coins.Transaction{second, first}, b.journal(t))
		require.Equal(t, int64(6), b.holding(t).Balance)
	}},
	{Name: "RefusalInATransactionLeavesItUsable", Run: func(t *testing.T, b bundle) {
		// The refusals the port names change nothing and leave the transaction going on.
		err := b.Store.InTx(b.ctx, func(r coins.Repo) error {
			_, err := r.ApplyMovement(b.ctx, b.movement(5), coins.Debit, coins.EventDebited)
			requireCode(t, coins.ErrInsufficientBalance, err)
			m := b.movement(5)
			m.CoinID = uuid.New()
			_, err = r.ApplyMovement(b.ctx, m, coins.Credit, coins.EventCredited)
			requireCode(t, coins.ErrCoinNotFound, err)
			_, err = r.ApplyMovement(b.ctx, b.movement(2), coins.Credit, coins.EventCredited)
			return err
		})
		require.NoError(t, err)
		require.Equal(t, int64(2), b.holding(t).Balance)
		require.Len(t, b.journal(t), 1)
	}},
	{Name: "MovementRolledBackAfterItsAnswerLeavesNothing", Run: func(t *testing.T, b bundle) {
		var seen coins.Transaction
		err := b.Store.InTx(b.ctx, func(r coins.Repo) error {
			var err error
			if seen, err = r.ApplyMovement(b.ctx, b.movement(7), coins.Credit, coins.EventCredited); err != nil {
				return err
			}
			return contract.ErrRollback
		})
		require.ErrorIs(t, err, contract.ErrRollback)
		require.Equal(t, int64(7), seen.BalanceAfter, "answered before the rollback")
		require.Equal(t, int64(0), b.holding(t).Balance)
		require.Empty(t, b.journal(t))
	}},
	{Name: "MovementOutsideATransactionCommitsAtOnce", Run: func(t *testing.T, b bundle) {
		tx, err := b.repo().ApplyMovement(b.ctx, b.movement(3), coins.Credit, coins.EventCredited)
		require.NoError(t, err)
		require.Equal(t, int64(3), b.holding(t).Balance)
		require.Equal(t, int64(3), tx.BalanceAfter)
		require.Equal(t, []coins.Transaction{tx}, b.journal(t))
	}},
}
