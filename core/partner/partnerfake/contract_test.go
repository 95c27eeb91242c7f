package partnerfake_test

import (
	"testing"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/coins/coinsfake"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/orders/ordersfake"
	"github.com/rewardsco/rewards/core/partner"
	"github.com/rewardsco/rewards/core/partner/partnerfake"
	"github.com/rewardsco/rewards/core/partner/partnertest"
	"github.com/rewardsco/rewards/core/store/memstore"
	"github.com/rewardsco/rewards/core/studio"
)

func TestContract(t *testing.T) {
	t.Parallel()
	partnertest.Run(t, func(*testing.T) partnertest.Harness {
		runner := &memstore.Runner{}
		orderRepo := ordersfake.New(coinsfake.New())
		fake := partnerfake.New(orderRepo)
		return partnertest.Harness{
			Runner: runner, Partner: memstore.New[partner.Repo](runner, fake), Orders: memstore.New[orders.Repo](runner, orderRepo),
			Wallet: partnerfake.NewWalletOrders(runner, fake),
			NewGame: func(*testing.T) studio.Game {
				g := studio.Game{ID: uuid.New(), StudioID: uuid.New(), Name: "Contract Game"}
				fake.AddGame(g)
				return g
			},
			NewKey: func(_ *testing.T, gameID uuid.UUID, env studio.Environment) []byte {
				hash := studio.HashKey(studio.RandomBase62(20))
				fake.SetKey(gameID, env, hash)
				return hash
			},
			RevokeKeys: func(_ *testing.T, gameID uuid.UUID, env studio.Environment) { fake.RevokeKeys(gameID, env) },
			NewBrand: func(_ *testing.T, code, name string) uuid.UUID {
				id := uuid.New()
				fake.AddBrand(partner.Brand{Code: code, Name: name, RewardID: id, ValueType: partner.Fixed,
					Denominations: []money.Amount{100, 500}, ProviderProduct: "P-" + code})
				return id
			},
		}
	})
}
