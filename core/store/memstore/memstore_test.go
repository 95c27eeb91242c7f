package memstore_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/coins/coinsfake"
	"github.com/rewardsco/rewards/core/store"
	"github.com/rewardsco/rewards/core/store/memstore"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/studio/studiofake"
)

type bundle struct {
	runner  *memstore.Runner
	studios *studiofake.Repo
	coins   *coinsfake.Repo
	st      store.Of[studio.Repo]
	cs      store.Of[coins.Repo]
	before  studio.Studio
	game    uuid.UUID // the game the coins are written for
}

func setup(t *testing.T) bundle {
	t.Helper()
	b := bundle{runner: &memstore.Runner{}, studios: studiofake.New(), coins: coinsfake.New(), game: uuid.New()}
	b.st = memstore.New[studio.Repo](b.runner, b.studios)
	b.cs = memstore.New[coins.Repo](b.runner, b.coins)
	var err error
	b.before, err = b.studios.CreateStudio(context.Background(), "Before")
	require.NoError(t, err)
	return b
}

func (b bundle) studioNames(t *testing.T) []string {
	t.Helper()
	list, err := b.studios.ListStudios(context.Background())
	require.NoError(t, err)
	names := []string{}
	for _, s := range list {
		names = append(names, s.Name)
	}
	return names
}

func TestTransactionsCommitOrRestore(t *testing.T) {
	t.Parallel()
	errBoom := errors.New("boom")
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		// run writes a studio named "Inside" and a coin, then returns fail.
		run  func(b bundle, fail error) error
		fail error
	}{
		{name: "runner, success", run: spanning},
		{name: "runner, failure", run: spanning, fail: errBoom},
		{name: "one module, success", run: oneModule},
		{name: "one module, failure", run: oneModule, fail: errBoom},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			err := tc.run(b, tc.fail)
			require.ErrorIs(t, err, tc.fail)

			list, err := b.coins.ListCoins(ctx, b.game)
			require.NoError(t, err)
			if tc.fail == nil {
				require.ElementsMatch(t, []string{"Before", "Inside"}, b.studioNames(t))
				require.Len(t, list, 1)
			} else {
				require.Equal(t, []string{"Before"}, b.studioNames(t), "the failed transaction's studio is gone")
				require.Empty(t, list, "every fake registered with the runner is restored")
			}
			got, err := b.studios.GetStudio(ctx, b.before.ID)
			require.NoError(t, err)
			require.Equal(t, b.before, got, "what was there before the transaction is still there")
		})
	}
}

// spanning writes to two modules in one transaction of the runner, as a use case spanning
// modules does.
func spanning(b bundle, fail error) error {
	ctx := context.Background()
	return b.runner.InTx(ctx, func(tx store.Tx) error {
		if _, err := b.st.WithTx(tx).CreateStudio(ctx, "Inside"); err != nil {
			return err
		}
		if _, err := b.cs.WithTx(tx).CreateCoin(ctx, coins.Coin{GameID: b.game, Name: "Gems", CoinsPerUnit: coins.DefaultCoinsPerUnit}); err != nil {
			return err
		}
		return fail
	})
}

// oneModule writes through the studio module's own InTx; the coins fake is written in the same
// runner transaction by reaching for it directly.
func oneModule(b bundle, fail error) error {
	ctx := context.Background()
	return b.st.InTx(ctx, func(r studio.Repo) error {
		if _, err := r.CreateStudio(ctx, "Inside"); err != nil {
			return err
		}
		if _, err := b.cs.Repo().CreateCoin(ctx, coins.Coin{GameID: b.game, Name: "Gems", CoinsPerUnit: coins.DefaultCoinsPerUnit}); err != nil {
			return err
		}
		return fail
	})
}
