package app_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/filestore"
	"github.com/rewardsco/rewards/adapters/jobs"
	"github.com/rewardsco/rewards/adapters/postgres"
	"github.com/rewardsco/rewards/adapters/postgres/pgtest"
	"github.com/rewardsco/rewards/app"
)

// The demo game's storeUrl follows REWARDS_PUBLIC_URL from one start to the next while it is
// the demo's; a storeUrl the operator set is left alone.
func TestDemoStoreURLFollowsThePublicURL(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	mods, err := app.NewModules(postgres.NewDB(pool), jobs.New(pool, jobs.Options{}), app.External{
		SecretKey: "test-secret-key-test-secret-key-0123456789", Files: filestore.Disk{Dir: t.TempDir()}})
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "demo.json")
	storeURL := func(demo *app.DemoCredentials) string {
		g, err := mods.Studios.GetGame(ctx, demo.GameID)
		require.NoError(t, err)
		return g.StoreURL
	}

	demo, err := app.SeedDemo(ctx, mods, path, "http://localhost:8080", false)
	require.NoError(t, err)
	require.Equal(t, "http://localhost:8080/store", storeURL(demo))
	again, err := app.SeedDemo(ctx, mods, path, "https://rewards.example.com", false)
	require.NoError(t, err)
	require.Equal(t, demo.GameID, again.GameID, "the demo is seeded once")
	require.Equal(t, "https://rewards.example.com/store", storeURL(again))

	_, err = mods.Studios.SetStoreURL(ctx, demo.GameID, "https://store.mygame.example")
	require.NoError(t, err)
	_, err = app.SeedDemo(ctx, mods, path, "http://localhost:9090", false)
	require.NoError(t, err)
	require.Equal(t, "https://store.mygame.example", storeURL(demo), "the operator's storeUrl stays")
}
