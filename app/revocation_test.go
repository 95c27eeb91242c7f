package app_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/postgres/pgtest"
	"github.com/rewardsco/rewards/core/authcache"
)

// Authentication lookups are cached for authcache.TTL in each instance. A revocation takes
// effect at once on the instance that made it, and on every other instance once its cached
// lookup expires: a rotated API key and a disabled player, with two instances on one database.
func TestRevocationReachesOtherInstancesWithinTheCacheTTL(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	a, b := setupOn(t, pool), setupOn(t, pool)
	g := a.newGame("Two Instances")
	bearer := "Bearer " + a.federatedToken(g, "player-1")
	funds := func(api *testAPI) int {
		return api.asGame(g, "GET", "/player/funds", "", "Authorization", bearer).Status
	}
	// Both instances have the key and the player cached.
	require.Equal(t, 200, funds(a))
	require.Equal(t, 200, funds(b))

	// The player disables itself through a: refused by a at once, by b within the TTL.
	require.Equal(t, 200, a.asGame(g, "DELETE", "/player/me", "", "Authorization", bearer).Status)
	require.Equal(t, 403, funds(a), "the instance that disabled the player refuses it at once")
	require.Eventually(t, func() bool { return funds(b) == 403 }, authcache.TTL+time.Second, 20*time.Millisecond)

	// The key is rotated through a: refused by a at once, by b within the TTL.
	g2 := a.newGame("Two Instances Again")
	list := func(api *testAPI) int { return api.asGame(g2, "GET", "/coins", "").Status }
	require.Equal(t, 200, list(a))
	require.Equal(t, 200, list(b))
	rot := a.admin("POST", "/admin/v1/games/"+g2.id+"/api-keys/test/rotate", "")
	require.Equal(t, 201, rot.Status, string(rot.Raw))
	require.Equal(t, 401, list(a), "the instance that rotated the key refuses the old one at once")
	require.Eventually(t, func() bool { return list(b) == 401 }, authcache.TTL+time.Second, 20*time.Millisecond)
}
