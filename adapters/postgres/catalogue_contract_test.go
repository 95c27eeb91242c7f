package postgres_test

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/postgres"
	"github.com/rewardsco/rewards/core/catalogue/cataloguetest"
	"github.com/rewardsco/rewards/core/studio"
)

func TestCatalogueContract(t *testing.T) {
	t.Parallel()
	cataloguetest.Run(t, func(t *testing.T) cataloguetest.Harness {
		c := openContractDB(t)
		return cataloguetest.Harness{
			Runner: c.db, Store: postgres.NewCatalogueStore(c.db), NewGame: c.newGame,
			NewPlayer: func(t *testing.T, gameID uuid.UUID) uuid.UUID { return c.newPlayer(t, gameID, studio.Test) },
			Version: func(t *testing.T) int64 {
				var v int64
				require.NoError(t, c.db.Pool().QueryRow(context.Background(), "SELECT version FROM catalogue_version").Scan(&v))
				return v
			},
		}
	})
}
