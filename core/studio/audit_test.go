package studio_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/audit"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/studio"
)

// lastEntry is the newest audit entry there is.
func (b bundle) lastEntry(t *testing.T) audit.Entry {
	t.Helper()
	all := b.audit.Entries()
	require.NotEmpty(t, all)
	return all[len(all)-1]
}

// TestChangesAreAudited: each change of a studio's data writes its entry, with the actor of the
// context, and no key or secret in it.
func TestChangesAreAudited(t *testing.T) {
	t.Parallel()
	b := setup(t)
	actor := audit.Actor{Kind: audit.Operator, Name: "operator", IP: "203.0.113.9", UserAgent: "curl/8"}
	ctx := audit.WithActor(context.Background(), actor)
	budget := money.Amount(5000)
	var secrets []string
	tests := []struct {
		action, env string
		details     map[string]string
		change      func() error
	}{
		{"api_key.rotate", "test", map[string]string{}, func() error {
			k, err := b.svc.RotateKey(ctx, b.game.ID, studio.Test)
			secrets = append(secrets, k)
			return err
		}},
		{"server_secret.issue", "live", map[string]string{}, func() error {
			k, err := b.svc.IssueServerSecret(ctx, b.game.ID, studio.Live)
			secrets = append(secrets, k)
			return err
		}},
		{"purchase_budget.set", "", map[string]string{"live": "50.00", "test": "unlimited"}, func() error {
			_, err := b.svc.SetPurchaseBudget(ctx, b.game.ID, studio.Budgets{Live: &budget}, map[studio.Environment]bool{studio.Live: true, studio.Test: true})
			return err
		}},
		{"store_url.set", "", map[string]string{"storeUrl": "https://store.example.com"}, func() error {
			_, err := b.svc.SetStoreURL(ctx, b.game.ID, "https://store.example.com/")
			return err
		}},
		{"allowed_origins.set", "", map[string]string{"test": "https://a.example.com https://b.example.com"}, func() error {
			_, err := b.svc.SetAllowedOrigins(ctx, b.game.ID, studio.Origins{Test: []string{"https://a.example.com", "https://B.example.com"}},
				map[studio.Environment]bool{studio.Test: true})
			return err
		}},
		{"server_only_coin_movements.set", "", map[string]string{"on": "true"}, func() error {
			_, err := b.svc.SetServerOnlyCoinMovements(ctx, b.game.ID, true)
			return err
		}},
	}
	for _, tt := range tests {
		require.NoError(t, tt.change(), tt.action)
		e := b.lastEntry(t)
		require.Equal(t, tt.action, e.Action)
		require.Equal(t, b.game.StudioID, e.StudioID, "the game's studio")
		require.Equal(t, b.game.ID, *e.GameID)
		require.Equal(t, "game", e.TargetType)
		require.Equal(t, b.game.ID.String(), e.TargetID)
		require.Equal(t, tt.env, e.Environment)
		require.Equal(t, tt.details, e.Details)
		require.Equal(t, actor, e.Actor)
	}
	for _, e := range b.audit.Entries() {
		for _, v := range append([]string{e.TargetID, e.Actor.Name}, mapValues(e.Details)...) {
			for _, secret := range append(secrets, b.game.LiveKey, b.game.TestKey) {
				require.NotContains(t, v, secret[len(secret)-12:], "no key or secret in an entry")
			}
		}
	}
}

func mapValues(m map[string]string) []string {
	out := []string{}
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

func TestCreationsAreAuditedWithoutKeys(t *testing.T) {
	t.Parallel()
	b := setup(t)
	all := b.audit.Entries()
	require.Len(t, all, 2)
	require.Equal(t, "studio.create", all[0].Action)
	require.Equal(t, b.game.StudioID, all[0].StudioID)
	require.Equal(t, audit.Actor{Kind: audit.System, Name: "system"}, all[0].Actor, "no actor in the context")
	require.Equal(t, "game.create", all[1].Action)
	require.Equal(t, b.game.ID.String(), all[1].TargetID)
	require.Equal(t, map[string]string{"name": "Tower Tactics", "storeUrl": ""}, all[1].Details)
	for _, v := range all[1].Details {
		require.False(t, strings.HasPrefix(v, "rk_"))
	}
}

// TestAFailedChangeWritesNoEntry: the entry is in the change's transaction, so a change that
// fails leaves none.
func TestAFailedChangeWritesNoEntry(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	before := len(b.audit.Entries())
	_, err := b.svc.RotateKey(ctx, uuid.New(), studio.Live)
	require.ErrorIs(t, err, studio.ErrGameNotFound)
	_, err = b.svc.SetStoreURL(ctx, uuid.New(), "https://store.example.com")
	require.ErrorIs(t, err, studio.ErrGameNotFound)
	_, err = b.svc.CreateGame(ctx, studio.Game{StudioID: uuid.New(), Name: "Nowhere"})
	require.ErrorIs(t, err, studio.ErrStudioNotFound)
	require.Len(t, b.audit.Entries(), before)
}
