package membersfake_test

import (
	"testing"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/members"
	"github.com/rewardsco/rewards/core/members/membersfake"
	"github.com/rewardsco/rewards/core/members/memberstest"
	"github.com/rewardsco/rewards/core/store/memstore"
)

func TestContract(t *testing.T) {
	t.Parallel()
	memberstest.Run(t, func(*testing.T) memberstest.Harness {
		runner := &memstore.Runner{}
		return memberstest.Harness{Runner: runner, Store: memstore.New[members.Repo](runner, membersfake.New()),
			NewStudio: func(*testing.T) uuid.UUID { return uuid.New() }}
	})
}
