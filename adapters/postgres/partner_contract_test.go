package postgres_test

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/postgres"
	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/partner/partnertest"
	"github.com/rewardsco/rewards/core/studio"
)

func TestPartnerContract(t *testing.T) {
	t.Parallel()
	partnertest.Run(t, func(t *testing.T) partnertest.Harness {
		c := openContractDB(t)
		studios := postgres.NewStudioStore(c.db).Repo()
		cat := postgres.NewCatalogueStore(c.db).Repo()
		ctx := context.Background()
		return partnertest.Harness{
			Runner: c.db, Partner: postgres.NewPartnerStore(c.db), Orders: postgres.NewOrdersStore(c.db),
			Wallet: postgres.NewPartnerWalletOrders(c.db),
			NewGame: func(t *testing.T) studio.Game {
				g, err := studios.GetGame(ctx, c.newGame(t))
				require.NoError(t, err)
				return g
			},
			NewKey: func(t *testing.T, gameID uuid.UUID, env studio.Environment) []byte {
				key := studio.RandomBase62(20)
				require.NoError(t, studios.InsertAPIKey(ctx, gameID, env, studio.HashKey(key), studio.KeyHint(key)))
				return studio.HashKey(key)
			},
			RevokeKeys: func(t *testing.T, gameID uuid.UUID, env studio.Environment) {
				require.NoError(t, studios.RevokeAPIKeys(ctx, gameID, env))
			},
			NewBrand: func(t *testing.T, code, name string) uuid.UUID {
				_, err := cat.UpsertBrand(ctx, catalogue.Brand{Code: code, Name: name, IsActive: true})
				require.NoError(t, err)
				r, err := cat.InsertReward(ctx, catalogue.Reward{Type: catalogue.GiftCard, BrandCode: code, Name: name + " gift card",
					IsActive: true, ValueType: catalogue.Fixed, Denominations: []money.Amount{100, 500}, ProviderProductID: "P-" + code}, nil)
				require.NoError(t, err)
				return r.ID
			},
		}
	})
}
