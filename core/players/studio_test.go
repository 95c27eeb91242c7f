package players_test

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/players"
	"github.com/rewardsco/rewards/core/studio"
)

func TestLookupByUUIDIDOrPhone(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	sc := players.Scope{GameID: b.caller.GameID, Environment: b.caller.Environment}
	byUUID, err := b.svc.CreateWithUUID(ctx, b.caller, "studio-ref-1")
	require.NoError(t, err)
	_, err = b.login(b.requestCode(t, phone))
	require.NoError(t, err)
	// A studio uuid that reads as another player's id names the studio's player.
	tricky, err := b.svc.CreateWithUUID(ctx, b.caller, byUUID.ID.String())
	require.NoError(t, err)

	for ref, want := range map[string]uuid.UUID{
		"studio-ref-1":     byUUID.ID,
		byUUID.ID.String(): tricky.ID,
		tricky.ID.String(): tricky.ID,
		"  studio-ref-1 ":  byUUID.ID,
	} {
		p, err := b.svc.Lookup(ctx, sc, ref)
		require.NoError(t, err, ref)
		require.Equal(t, want, p.ID, ref)
	}
	p, err := b.svc.Lookup(ctx, sc, phone)
	require.NoError(t, err)
	require.Equal(t, phone, *p.Phone)

	plus, err := b.svc.CreateWithUUID(ctx, b.caller, "+studio-ref")
	require.NoError(t, err)
	p, err = b.svc.Lookup(ctx, sc, "+studio-ref")
	require.NoError(t, err)
	require.Equal(t, plus.ID, p.ID, "a studio uuid that starts like a phone")

	for _, ref := range []string{"", "+910000000001", uuid.NewString(), "nobody"} {
		_, err := b.svc.Lookup(ctx, sc, ref)
		require.ErrorIs(t, err, players.ErrPlayerNotFound, ref)
	}
	_, err = b.svc.Lookup(ctx, players.Scope{GameID: sc.GameID, Environment: studio.Live}, "studio-ref-1")
	require.ErrorIs(t, err, players.ErrPlayerNotFound, "another environment's player")
}
