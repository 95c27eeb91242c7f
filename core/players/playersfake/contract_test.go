package playersfake_test

import (
	"testing"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/players"
	"github.com/rewardsco/rewards/core/players/playersfake"
	"github.com/rewardsco/rewards/core/players/playerstest"
	"github.com/rewardsco/rewards/core/store/memstore"
)

func TestContract(t *testing.T) {
	t.Parallel()
	playerstest.Run(t, func(*testing.T) playerstest.Harness {
		return playerstest.Harness{
			Store:   memstore.New[players.Repo](&memstore.Runner{}, playersfake.New()),
			NewGame: func(*testing.T) uuid.UUID { return uuid.New() },
		}
	})
}
