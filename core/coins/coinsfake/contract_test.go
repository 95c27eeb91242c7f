package coinsfake_test

import (
	"testing"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/coins/coinsfake"
	"github.com/rewardsco/rewards/core/coins/coinstest"
	"github.com/rewardsco/rewards/core/store/memstore"
	"github.com/rewardsco/rewards/core/studio"
)

func TestContract(t *testing.T) {
	t.Parallel()
	coinstest.Run(t, func(*testing.T) coinstest.Harness {
		return coinstest.Harness{
			Store:     memstore.New[coins.Repo](&memstore.Runner{}, coinsfake.New()),
			NewGame:   func(*testing.T) uuid.UUID { return uuid.New() },
			NewPlayer: func(*testing.T, uuid.UUID, studio.Environment) uuid.UUID { return uuid.New() },
		}
	})
}
