package coins_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/coins/coinsfake"
	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/idempotency"
	"github.com/rewardsco/rewards/core/idempotency/idemfake"
	"github.com/rewardsco/rewards/core/store/memstore"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/studio/studiofake"
)

type bundle struct {
	svc    *coins.Service
	coins  *coinsfake.Repo
	game   studio.Game
	coin   coins.Coin
	player uuid.UUID
}

func setup(t *testing.T) bundle {
	t.Helper()
	ctx := context.Background()
	runner := &memstore.Runner{}
	games, cf := studiofake.New(), coinsfake.New()
	keeper := idempotency.NewKeeper(runner, memstore.New[idempotency.Repo](runner, idemfake.New()))
	svc := coins.NewService(runner, memstore.New[coins.Repo](runner, cf), memstore.New[studio.Repo](runner, games), keeper)

	s, err := games.CreateStudio(ctx, "Pixel Forge")
	require.NoError(t, err)
	g, err := games.CreateGame(ctx, studio.Game{StudioID: s.ID, Name: "Tower Tactics"})
	require.NoError(t, err)
	c, err := svc.CreateCoin(ctx, coins.Coin{GameID: g.ID, Name: " Gems ", ImageURL: "https://cdn.example.com/gem.png"})
	require.NoError(t, err)
	return bundle{svc: svc, coins: cf, game: g, coin: c, player: uuid.New()}
}

// movement is a movement of amount of the bundle's coin for its player.
func (b bundle) movement(amount int64) coins.Movement {
	return coins.Movement{GameID: b.game.ID, Environment: studio.Test, PlayerID: b.player, UserUUID: "player-1",
		CoinID: b.coin.ID, Amount: amount}
}

func (b bundle) balance(t *testing.T) int64 {
	t.Helper()
	funds, err := b.svc.Funds(context.Background(), b.game.ID, b.player)
	require.NoError(t, err)
	require.Len(t, funds, 1)
	return funds[0].Balance
}

func (b bundle) journal(t *testing.T) []coins.Transaction {
	t.Helper()
	list, total, err := b.svc.Transactions(context.Background(), b.player, 100, 0)
	require.NoError(t, err)
	require.EqualValues(t, len(list), total)
	return list
}

func TestMovementRules(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		edit func(*coins.Movement)
	}{
		{"zero amount", func(m *coins.Movement) { m.Amount = 0 }},
		{"negative amount", func(m *coins.Movement) { m.Amount = -5 }},
		{"above the maximum", func(m *coins.Movement) { m.Amount = coins.MaxAmount + 1 }},
		{"lower-case reason", func(m *coins.Movement) { m.Reason = "bonus" }},
		{"reason with spaces", func(m *coins.Movement) { m.Reason = "LEVEL UP" }},
		{"long reference", func(m *coins.Movement) { m.ReferenceID = strings.Repeat("r", coins.MaxReferenceIDLen+1) }},
		{"long description", func(m *coins.Movement) { m.Description = strings.Repeat("d", coins.MaxDescriptionLen+1) }},
		{"metadata over 4 KiB", func(m *coins.Movement) { m.Metadata = metadataOf(4097) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			// Enough coins that a deduction is refused by the rule, not by the balance.
			_, _, err := b.svc.Distribute(context.Background(), b.movement(100))
			require.NoError(t, err)

			m := b.movement(1)
			c.edit(&m)
			_, _, err = b.svc.Distribute(context.Background(), m)
			require.ErrorIs(t, err, errs.ErrInvalid)
			_, _, err = b.svc.Deduct(context.Background(), m)
			require.ErrorIs(t, err, errs.ErrInvalid)

			require.Len(t, b.journal(t), 1, "a refused movement writes nothing")
			require.EqualValues(t, 100, b.balance(t))
			require.Len(t, b.coins.Events(), 1)
		})
	}
}

// metadataOf is a JSON object of n bytes.
func metadataOf(n int) []byte { return []byte(`{"k":"` + strings.Repeat("x", n-8) + `"}`) }

func TestMetadataUpTo4KiBIsKept(t *testing.T) {
	t.Parallel()
	b := setup(t)
	m := b.movement(3)
	m.Metadata = metadataOf(4096)
	tx, _, err := b.svc.Distribute(context.Background(), m)
	require.NoError(t, err)
	require.Equal(t, m.Metadata, tx.Metadata)

	m.Metadata = metadataOf(1 << 20)
	_, _, err = b.svc.Distribute(context.Background(), m)
	require.ErrorIs(t, err, errs.ErrInvalid)
	require.Contains(t, err.Error(), "4 KiB")
	require.EqualValues(t, 3, b.balance(t))
}

func TestDeductNeverBelowZero(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()

	_, _, err := b.svc.Deduct(ctx, b.movement(1))
	require.ErrorIs(t, err, coins.ErrInsufficientBalance, "no balance yet")

	credit, _, err := b.svc.Distribute(ctx, b.movement(10))
	require.NoError(t, err)
	require.Equal(t, coins.Credit, credit.Type)
	require.Equal(t, coins.ReasonGameCredit, credit.Reason)
	require.EqualValues(t, 10, credit.BalanceAfter)

	_, _, err = b.svc.Deduct(ctx, b.movement(11))
	require.ErrorIs(t, err, coins.ErrInsufficientBalance)
	require.EqualValues(t, 10, b.balance(t), "a refused deduction changes nothing")

	debit, _, err := b.svc.Deduct(ctx, b.movement(10))
	require.NoError(t, err)
	require.Equal(t, coins.ReasonGameDebit, debit.Reason)
	require.Zero(t, debit.BalanceAfter)

	funds, err := b.svc.Funds(ctx, b.game.ID, b.player)
	require.NoError(t, err)
	require.Equal(t, coins.Fund{Coin: coins.Coin{ID: b.coin.ID, GameID: b.game.ID, Name: "Gems", ImageURL: b.coin.ImageURL},
		Balance: 0, LifetimeEarned: 10, LifetimeSpent: 10}, funds[0])

	journal := b.journal(t)
	require.Len(t, journal, 2)
	require.Equal(t, []uuid.UUID{debit.ID, credit.ID}, []uuid.UUID{journal[0].ID, journal[1].ID}, "newest first")
	events := b.coins.Events()
	require.Len(t, events, 2)
	require.Equal(t, coins.EventDebited, events[1].Type)
	require.EqualValues(t, -10, events[1].Delta)
	require.Equal(t, "player-1", events[1].UserUUID)
}

func TestMovementOfAnotherGamesCoin(t *testing.T) {
	t.Parallel()
	b := setup(t)
	m := b.movement(5)
	m.GameID = uuid.New()
	_, _, err := b.svc.Distribute(context.Background(), m)
	require.ErrorIs(t, err, coins.ErrCoinNotFound)
	require.Empty(t, b.journal(t))
}

func TestIdempotentMovements(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	m := b.movement(7)
	m.IdempotencyKey = "order-1"

	first, replayed, err := b.svc.Distribute(ctx, m)
	require.NoError(t, err)
	require.False(t, replayed)
	again, replayed, err := b.svc.Distribute(ctx, m)
	require.NoError(t, err)
	require.True(t, replayed)
	require.Equal(t, first.ID, again.ID)
	require.EqualValues(t, 7, b.balance(t), "credited once")

	m.Amount = 8
	_, _, err = b.svc.Distribute(ctx, m)
	require.ErrorIs(t, err, idempotency.ErrKeyReused)

	// A refusal is an outcome too: the same deduction is refused again even once the balance
	// would cover it.
	d := b.movement(100)
	d.IdempotencyKey = "spend-1"
	_, _, err = b.svc.Deduct(ctx, d)
	require.ErrorIs(t, err, coins.ErrInsufficientBalance)
	_, _, err = b.svc.Distribute(ctx, b.movement(100))
	require.NoError(t, err)
	_, replayed, err = b.svc.Deduct(ctx, d)
	require.ErrorIs(t, err, coins.ErrInsufficientBalance)
	require.True(t, replayed)
	require.EqualValues(t, 107, b.balance(t))

	// Keys are per player.
	other := m
	other.Amount, other.PlayerID = 7, uuid.New()
	_, replayed, err = b.svc.Distribute(ctx, other)
	require.NoError(t, err)
	require.False(t, replayed)
}

func TestCreateCoinNeedsTheGame(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	require.Equal(t, "Gems", b.coin.Name, "names are trimmed")

	missing := uuid.New()
	_, err := b.svc.CreateCoin(ctx, coins.Coin{GameID: missing, Name: "Gold"})
	require.ErrorIs(t, err, studio.ErrGameNotFound)
	list, err := b.svc.ListCoins(ctx, missing)
	require.NoError(t, err)
	require.Empty(t, list)

	_, err = b.svc.CreateCoin(ctx, coins.Coin{GameID: b.game.ID, Name: "  "})
	require.ErrorIs(t, err, errs.ErrInvalid)

	gold, err := b.svc.CreateCoin(ctx, coins.Coin{GameID: b.game.ID, Name: "Gold"})
	require.NoError(t, err)
	g, list, err := b.svc.GameCoins(ctx, b.game.ID)
	require.NoError(t, err)
	require.Equal(t, b.game.ID, g.ID)
	require.Len(t, list, 2)
	require.Equal(t, []uuid.UUID{b.coin.ID, gold.ID}, []uuid.UUID{list[0].ID, list[1].ID}, "oldest first")
}

func TestHistory(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	gold, err := b.svc.CreateCoin(ctx, coins.Coin{GameID: b.game.ID, Name: "Gold"})
	require.NoError(t, err)
	for _, amount := range []int64{5, 6, 7} {
		_, _, err := b.svc.Distribute(ctx, b.movement(amount))
		require.NoError(t, err)
	}
	_, _, err = b.svc.Deduct(ctx, b.movement(4))
	require.NoError(t, err)
	g := b.movement(50)
	g.CoinID = gold.ID
	_, _, err = b.svc.Distribute(ctx, g)
	require.NoError(t, err)

	h, err := b.svc.History(ctx, b.game.ID, b.player, nil, 2, 1)
	require.NoError(t, err)
	require.Equal(t, b.coin.ID, h.Coin.ID, "no coin named: the game's first")
	require.EqualValues(t, 14, h.CurrentBalance)
	require.EqualValues(t, 18, h.LifetimeEarned)
	require.EqualValues(t, 4, h.LifetimeSpent)
	require.Equal(t, "0.00", h.Savings)
	require.EqualValues(t, 4, h.Total, "the other coin's entry is not counted")
	require.Len(t, h.Transactions, 2)
	require.Equal(t, []int64{7, 6}, []int64{h.Transactions[0].Amount, h.Transactions[1].Amount}, "newest first, after the offset")

	_, err = b.svc.History(ctx, b.game.ID, b.player, &uuid.Nil, 10, 0)
	require.ErrorIs(t, err, coins.ErrCoinNotFound)
	_, err = b.svc.History(ctx, uuid.New(), b.player, nil, 10, 0)
	require.ErrorIs(t, err, coins.ErrNoCoins)
}
