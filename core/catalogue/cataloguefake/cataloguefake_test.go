package cataloguefake_test

import (
	"testing"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/catalogue/cataloguefake"
	"github.com/rewardsco/rewards/core/catalogue/cataloguetest"
	"github.com/rewardsco/rewards/core/coins/coinsfake"
	"github.com/rewardsco/rewards/core/store/memstore"
)

func TestContract(t *testing.T) {
	t.Parallel()
	cataloguetest.Run(t, func(t *testing.T) cataloguetest.Harness {
		runner := &memstore.Runner{}
		fake := cataloguefake.New(coinsfake.New())
		return cataloguetest.Harness{
			Runner: runner, Store: memstore.New[catalogue.Repo](runner, fake),
			NewGame:   func(*testing.T) uuid.UUID { return uuid.New() },
			NewPlayer: func(*testing.T, uuid.UUID) uuid.UUID { return uuid.New() },
			Version:   func(*testing.T) int64 { return fake.Version() },
		}
	})
}
