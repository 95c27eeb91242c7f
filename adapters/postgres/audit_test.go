package postgres_test

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/postgres"
	"github.com/rewardsco/rewards/core/audit"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/touchpoints"
)

// newAuditLog is the audit log of d, for the services the tests build on it.
func newAuditLog(d *postgres.DB) *audit.Log { return audit.New(d, postgres.NewAuditStore(d)) }

// auditActions are the actions of the studio's entries, newest first.
func auditActions(t *testing.T, d *postgres.DB, f audit.Filter) []string {
	t.Helper()
	f.Limit = 100
	list, err := newAuditLog(d).List(context.Background(), f)
	require.NoError(t, err)
	out := []string{}
	for _, e := range list {
		out = append(out, e.Action)
	}
	return out
}

// A placement's change, the go-live and the touchpoint coin write their entries in their own
// transaction, with the game's studio; a change that fails writes none.
func TestTouchpointChangesAreAudited(t *testing.T) {
	t.Parallel()
	b := setupTouchpoints(t)
	d := postgres.NewDB(b.pool)
	ctx := audit.WithActor(context.Background(), audit.Actor{Kind: audit.Operator, Name: "operator"})
	gc := b.giftCard(t, "Gift", 1)
	id := b.place(t, studio.Test, touchpoints.TypeGiftCard, &gc, "", nil)
	_, err := b.tp.Promote(ctx, b.game.ID)
	require.NoError(t, err)
	require.NoError(t, b.tp.SetCoin(ctx, b.game.ID, b.coin.ID))
	// Refused inside their transactions: an unknown product, a coin of no game.
	_, _, err = b.tp.PutPlacement(ctx, touchpoints.Placement{ID: uuid.New(), GameID: b.game.ID, Environment: studio.Test,
		Screen: "home", Type: touchpoints.TypeProduct, ProductID: "no-such-product", IsActive: true,
		Asset: touchpoints.Asset{Source: touchpoints.SourceUpload, ImageURL: "https://cdn.example.com/f.png", Orientation: touchpoints.Portrait, Width: 300, Height: 400}})
	require.Error(t, err)
	require.Error(t, b.tp.SetCoin(ctx, b.game.ID, uuid.New()))

	f := audit.Filter{StudioID: b.game.StudioID}
	require.Equal(t, []string{"touchpoint_coin.set", "placement.promote", "placement.put", "game.create", "studio.create"}, auditActions(t, d, f))
	list, err := newAuditLog(d).List(context.Background(), audit.Filter{StudioID: b.game.StudioID, Action: "placement.put"})
	require.NoError(t, err)
	require.Equal(t, id.String(), list[0].TargetID)
	require.Equal(t, "test", list[0].Environment)
	require.Equal(t, b.game.ID, *list[0].GameID)
	require.Equal(t, map[string]string{"screen": "home", "type": string(touchpoints.TypeGiftCard), "created": "true", "active": "true"}, list[0].Details)
	promoted, err := newAuditLog(d).List(context.Background(), audit.Filter{StudioID: b.game.StudioID, Action: "placement.promote"})
	require.NoError(t, err)
	require.Equal(t, audit.Operator, promoted[0].Actor.Kind)
	require.Equal(t, "live", promoted[0].Environment)
	require.Equal(t, map[string]string{"livePlacements": "1", "added": "1", "changed": "0", "removed": "0"}, promoted[0].Details)
}
