package webhooksfake_test

import (
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/store/memstore"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/webhooks"
	"github.com/rewardsco/rewards/core/webhooks/webhooksfake"
	"github.com/rewardsco/rewards/core/webhooks/webhookstest"
)

func TestContract(t *testing.T) {
	t.Parallel()
	webhookstest.Run(t, func(*testing.T) webhookstest.Harness {
		repo := webhooksfake.New()
		var mu sync.Mutex
		studioOf := map[uuid.UUID]uuid.UUID{} // game → studio, as games.studio_id holds it
		return webhookstest.Harness{
			Store: memstore.New[webhooks.Repo](&memstore.Runner{}, repo),
			NewGame: func(*testing.T) (uuid.UUID, uuid.UUID) {
				mu.Lock()
				defer mu.Unlock()
				s, g := uuid.New(), uuid.New()
				studioOf[g] = s
				return s, g
			},
			Publish: func(t *testing.T, gameID uuid.UUID, env studio.Environment, typ, reason string) uuid.UUID {
				mu.Lock()
				s := studioOf[gameID]
				mu.Unlock()
				tx := uuid.New()
				_, err := repo.Publish(webhooksfake.Event{TransactionID: tx, GameID: gameID, StudioID: s, Environment: env,
					Type: typ, Reason: reason})
				require.NoError(t, err)
				return tx
			},
			Claim: repo.Claim,
		}
	})
}
