package postgres_test

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/postgres"
	"github.com/rewardsco/rewards/adapters/postgres/pgtest"
	"github.com/rewardsco/rewards/core/idempotency"
)

// TestIdempotencyAgesUseTheDatabaseClock: whether a claim is stale, and whether a key is past
// its retention, is decided by the database's now() against the times it recorded; nothing of
// the application's clock is sent, so instances with skewed clocks agree.
func TestIdempotencyAgesUseTheDatabaseClock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	repo := postgres.NewIdempotencyStore(postgres.NewDB(pool)).Repo()
	key := idempotency.Key{GameID: uuid.New(), Environment: "test", Scope: "player:x", Key: "k"}
	hash := []byte("fingerprint")
	claim := func() bool {
		_, claimed, err := repo.ClaimKey(ctx, idempotency.Claim{Key: key, Token: uuid.New()}, hash, idempotency.StaleAfter)
		require.NoError(t, err)
		return claimed
	}
	age := func(column, by string) {
		_, err := pool.Exec(ctx, `UPDATE idempotency_keys SET `+column+` = `+column+` - $1::interval`, by)
		require.NoError(t, err)
	}

	require.True(t, claim())
	require.False(t, claim(), "a fresh claim is not taken over")
	age("locked_at", "119 seconds")
	require.False(t, claim(), "a claim younger than StaleAfter is not taken over")
	age("locked_at", "2 seconds")
	require.True(t, claim(), "a claim older than StaleAfter is taken over")
	require.False(t, claim(), "the takeover renewed the claim")

	n, err := repo.PurgeKeys(ctx, idempotency.Retention)
	require.NoError(t, err)
	require.Zero(t, n)
	age("created_at", "24 hours 1 second")
	n, err = repo.PurgeKeys(ctx, idempotency.Retention)
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
}
