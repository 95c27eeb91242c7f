package postgres_test

import (
	"context"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/postgres"
	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/webhooks/webhookstest"
)

// TestWebhooksContract runs the webhooks storage's contract on PostgreSQL, where a coin
// movement (CoinsApplyMovement) records each event and routes it with webhook_routes.
func TestWebhooksContract(t *testing.T) {
	t.Parallel()
	webhookstest.Run(t, func(t *testing.T) webhookstest.Harness {
		c := openContractDB(t)
		coinStore := postgres.NewCoinsStore(c.db, nil)
		var mu sync.Mutex
		coinOf := map[uuid.UUID]uuid.UUID{}   // game → its coin
		playerOf := map[[2]string]uuid.UUID{} // (game, environment) → a player
		return webhookstest.Harness{
			Store: postgres.NewWebhooksStore(c.db, nopNotifier{}),
			NewGame: func(t *testing.T) (uuid.UUID, uuid.UUID) {
				id := c.newGame(t)
				g, err := postgres.NewStudioStore(c.db).Repo().GetGame(context.Background(), id)
				require.NoError(t, err)
				return g.StudioID, g.ID
			},
			Publish: func(t *testing.T, gameID uuid.UUID, env studio.Environment, typ, reason string) uuid.UUID {
				ctx := context.Background()
				mu.Lock()
				defer mu.Unlock()
				if _, ok := coinOf[gameID]; !ok {
					k, err := coinStore.Repo().CreateCoin(ctx, coins.Coin{GameID: gameID, Name: "Gems",
						ImageURL: "https://cdn.example.com/gems.png", CoinsPerUnit: coins.DefaultCoinsPerUnit})
					require.NoError(t, err)
					coinOf[gameID] = k.ID
				}
				key := [2]string{gameID.String(), string(env)}
				if _, ok := playerOf[key]; !ok {
					playerOf[key] = c.newPlayer(t, gameID, env)
				}
				player := playerOf[key]
				tx, err := coinStore.Repo().ApplyMovement(ctx, coins.Movement{GameID: gameID, Environment: env, PlayerID: player,
					UserUUID: player.String(), CoinID: coinOf[gameID], Amount: 5, Reason: reason, ReferenceID: uuid.NewString()},
					coins.Credit, coins.EventType(typ))
				require.NoError(t, err)
				return tx.ID
			},
			Claim: postgres.NewWebhookOutbox(c.db).Claim,
		}
	})
}

// nopNotifier hears of added deliveries and does nothing: the contract claims them itself.
type nopNotifier struct{}

func (nopNotifier) DeliveriesAdded() {}
