package studiofake_test

import (
	"testing"

	"github.com/rewardsco/rewards/core/store"
	"github.com/rewardsco/rewards/core/store/memstore"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/studio/studiofake"
	"github.com/rewardsco/rewards/core/studio/studiotest"
)

func TestContract(t *testing.T) {
	t.Parallel()
	studiotest.Run(t, func(*testing.T) store.Of[studio.Repo] {
		return memstore.New[studio.Repo](&memstore.Runner{}, studiofake.New())
	})
}
