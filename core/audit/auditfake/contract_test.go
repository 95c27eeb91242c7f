package auditfake_test

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/audit"
	"github.com/rewardsco/rewards/core/audit/auditfake"
	"github.com/rewardsco/rewards/core/audit/audittest"
	"github.com/rewardsco/rewards/core/store/memstore"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/studio/studiofake"
)

func TestContract(t *testing.T) {
	t.Parallel()
	audittest.Run(t, func(*testing.T) audittest.Harness {
		runner := &memstore.Runner{}
		games := studiofake.New()
		memstore.New[studio.Repo](runner, games)
		return audittest.Harness{Store: memstore.New[audit.Repo](runner, auditfake.New(games)),
			NewGame: func(t *testing.T) (uuid.UUID, uuid.UUID) {
				s, err := games.CreateStudio(context.Background(), "Audit Studio")
				require.NoError(t, err)
				g, err := games.CreateGame(context.Background(), studio.Game{StudioID: s.ID, Name: "Audit Game"})
				require.NoError(t, err)
				return s.ID, g.ID
			}}
	})
}
