package postgres_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/postgres"
	"github.com/rewardsco/rewards/adapters/postgres/pgtest"
	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/store"
	"github.com/rewardsco/rewards/core/studio"
)

// A transaction function that goes on after a statement failed, and returns nil, has not
// committed: PostgreSQL aborted the transaction at the failure. InTx says so rather than
// reporting a success that wrote nothing.
func TestACommitThatRolledBackIsAnError(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	database := postgres.NewDB(pool)
	_, err := pool.Exec(ctx, `CREATE TABLE notes (id int PRIMARY KEY)`)
	require.NoError(t, err)

	err = database.InTx(ctx, func(tx store.Tx) error {
		q := tx.(*postgres.Tx).PgxTx()
		if _, err := q.Exec(ctx, `INSERT INTO notes VALUES (1)`); err != nil {
			return err
		}
		_, err := q.Exec(ctx, `INSERT INTO notes VALUES (1)`)
		require.Error(t, err, "a duplicate key")
		return nil
	})
	require.ErrorIs(t, err, pgx.ErrTxCommitRollback)
	var count int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM notes`).Scan(&count))
	require.Zero(t, count)
	require.NoError(t, database.InTx(ctx, func(tx store.Tx) error {
		_, err := tx.(*postgres.Tx).PgxTx().Exec(ctx, `INSERT INTO notes VALUES (2)`)
		return err
	}), "the connection goes on")
}

// The same through a port: a queued movement that PostgreSQL refuses (a zero amount breaks the
// journal's check; the service never sends one) aborts the transaction, so the credit that
// travelled with it and the transaction's COMMIT fail too, even when the caller goes on.
func TestARefusedQueuedMovementFailsTheTransaction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := openContractDB(t)
	s := postgres.NewCoinsStore(c.db, nil)
	game := c.newGame(t)
	player := c.newPlayer(t, game, studio.Test)
	coin, err := s.Repo().CreateCoin(ctx, coins.Coin{GameID: game, Name: "Gems", CoinsPerUnit: 1})
	require.NoError(t, err)
	m := coins.Movement{GameID: game, Environment: studio.Test, PlayerID: player, CoinID: coin.ID}

	err = s.InTx(ctx, func(r coins.Repo) error {
		zero := postgres.QueueMovement(ctx, r, m, coins.Credit, coins.EventCredited)
		five := m
		five.Amount = 5
		_, err := r.ApplyMovement(ctx, five, coins.Credit, coins.EventCredited)
		require.Error(t, err, "the statement the refused one travelled with")
		_, err = zero(ctx)
		require.Error(t, err)
		return nil
	})
	require.ErrorIs(t, err, pgx.ErrTxCommitRollback)
	funds, err := s.Repo().Funds(ctx, game, player)
	require.NoError(t, err)
	require.Zero(t, funds[0].Balance)
}
