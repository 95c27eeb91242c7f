package idemfake_test

import (
	"testing"

	"github.com/rewardsco/rewards/core/idempotency"
	"github.com/rewardsco/rewards/core/idempotency/idemfake"
	"github.com/rewardsco/rewards/core/idempotency/idemtest"
	"github.com/rewardsco/rewards/core/store"
	"github.com/rewardsco/rewards/core/store/memstore"
)

func TestContract(t *testing.T) {
	t.Parallel()
	idemtest.Run(t, func(*testing.T) store.Of[idempotency.Repo] {
		return memstore.New[idempotency.Repo](&memstore.Runner{}, idemfake.New())
	})
}
