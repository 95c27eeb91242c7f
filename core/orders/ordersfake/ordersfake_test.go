package ordersfake_test

import (
	"testing"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/coins/coinsfake"
	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/orders/ordersfake"
	"github.com/rewardsco/rewards/core/orders/ordertest"
	"github.com/rewardsco/rewards/core/store/memstore"
	"github.com/rewardsco/rewards/core/studio"
)

func TestContract(t *testing.T) {
	t.Parallel()
	ordertest.Run(t, func(t *testing.T) ordertest.Harness {
		runner := &memstore.Runner{}
		coinRepo := coinsfake.New()
		fake := ordersfake.New(coinRepo)
		fake.SetCatalogueVersion(1)
		return ordertest.Harness{
			Runner: runner, Orders: memstore.New[orders.Repo](runner, fake), Coins: memstore.New[coins.Repo](runner, coinRepo),
			NewGame:   func(*testing.T) uuid.UUID { return uuid.New() },
			NewPlayer: func(*testing.T, uuid.UUID, studio.Environment) uuid.UUID { return uuid.New() },
			NewPool: func(_ *testing.T, codes ...string) uuid.UUID {
				id := uuid.New()
				for _, c := range codes {
					fake.AddPool(id, catalogue.SealedCode{Fingerprint: []byte(c), Code: []byte(c)})
				}
				return id
			},
			NewShared: func(_ *testing.T, code string) uuid.UUID {
				id := uuid.New()
				fake.SetSharedCode(id, []byte(code))
				return id
			},
			CatalogueVersion: func(*testing.T) int64 { return 1 },
		}
	})
}
