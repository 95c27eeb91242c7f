package postgres_test

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/postgres"
	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/orders/ordertest"
)

func TestOrdersContract(t *testing.T) {
	t.Parallel()
	ordertest.Run(t, func(t *testing.T) ordertest.Harness {
		c := openContractDB(t)
		cat := postgres.NewCatalogueStore(c.db).Repo()
		coupon := func(t *testing.T, shared []byte) uuid.UUID {
			ctx := context.Background()
			_, err := cat.UpsertBrand(ctx, catalogue.Brand{Code: "CONTRACT", Name: "Contract Brand", IsActive: true})
			require.NoError(t, err)
			r, err := cat.InsertReward(ctx, catalogue.Reward{Type: catalogue.Coupon, BrandCode: "CONTRACT", Name: "10% off",
				IsActive: true, ValueType: catalogue.Fixed, MRP: money.Amount(200), SellingPrice: money.Amount(100)}, shared)
			require.NoError(t, err)
			return r.ID
		}
		return ordertest.Harness{
			Runner: c.db, Orders: postgres.NewOrdersStore(c.db), Coins: postgres.NewCoinsStore(c.db, nil),
			NewGame: c.newGame, NewPlayer: c.newPlayer,
			NewPool: func(t *testing.T, codes ...string) uuid.UUID {
				id := coupon(t, nil)
				sealed := make([]catalogue.SealedCode, len(codes))
				for i, code := range codes {
					sealed[i] = catalogue.SealedCode{Fingerprint: []byte(code), Code: []byte(code)}
				}
				_, err := cat.AddCodes(context.Background(), id, sealed)
				require.NoError(t, err)
				return id
			},
			NewShared: func(t *testing.T, code string) uuid.UUID { return coupon(t, []byte(code)) },
			CatalogueVersion: func(t *testing.T) int64 {
				var v int64
				require.NoError(t, c.db.Pool().QueryRow(context.Background(), "SELECT version FROM catalogue_version").Scan(&v))
				return v
			},
		}
	})
}
