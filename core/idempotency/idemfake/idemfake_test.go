package idemfake_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/idempotency"
	"github.com/rewardsco/rewards/core/idempotency/idemfake"
)

// TestClaimTokens pins down the claim rules the PostgreSQL queries implement, which
// idempotency.Do relies on.
func TestClaimTokens(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := idemfake.New()
	key := idempotency.Key{GameID: uuid.New(), Environment: "test", Scope: "player:1", Key: "k1"}
	hash, other := []byte("hash"), []byte("other")
	first := idempotency.Claim{Key: key, Token: uuid.New()}
	retry := idempotency.Claim{Key: key, Token: uuid.New()}
	notStale := time.Hour // no claim made in this test is that old
	stale := -time.Hour   // every running key looks stale

	_, claimed, err := r.ClaimKey(ctx, first, hash, notStale)
	require.NoError(t, err)
	require.True(t, claimed, "a new key is claimed")

	rec, claimed, err := r.ClaimKey(ctx, retry, hash, notStale)
	require.NoError(t, err)
	require.False(t, claimed, "a running key is not taken over before it is stale")
	require.Equal(t, idempotency.Record{RequestHash: hash}, rec)

	_, claimed, err = r.ClaimKey(ctx, retry, other, stale)
	require.NoError(t, err)
	require.False(t, claimed, "a stale key is taken over only by the same request")

	_, claimed, err = r.ClaimKey(ctx, retry, hash, stale)
	require.NoError(t, err)
	require.True(t, claimed, "a stale key is taken over by the same request")

	require.ErrorIs(t, r.CompleteKey(ctx, first, []byte(`1`), ""), idempotency.ErrClaimLost, "the old claim may not complete")
	require.NoError(t, r.ReleaseKey(ctx, first))
	rec, claimed, err = r.ClaimKey(ctx, first, hash, notStale)
	require.NoError(t, err)
	require.False(t, claimed, "the old claim's release did nothing")
	require.False(t, rec.Done)

	require.NoError(t, r.CompleteKey(ctx, retry, []byte(`2`), ""))
	require.ErrorIs(t, r.CompleteKey(ctx, retry, []byte(`3`), ""), idempotency.ErrClaimLost, "a key completes once")
	require.NoError(t, r.ReleaseKey(ctx, retry))
	rec, claimed, err = r.ClaimKey(ctx, first, hash, stale)
	require.NoError(t, err)
	require.False(t, claimed, "a finished key is never taken over")
	require.Equal(t, idempotency.Record{RequestHash: hash, Done: true, Result: []byte(`2`)}, rec)
}

func TestReleaseForgetsARunningKey(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := idemfake.New()
	c := idempotency.Claim{Key: idempotency.Key{GameID: uuid.New(), Environment: "live", Scope: "s", Key: "k"}, Token: uuid.New()}
	_, claimed, err := r.ClaimKey(ctx, c, []byte("a"), time.Hour)
	require.NoError(t, err)
	require.True(t, claimed)
	require.NoError(t, r.ReleaseKey(ctx, c))
	_, claimed, err = r.ClaimKey(ctx, idempotency.Claim{Key: c.Key, Token: uuid.New()}, []byte("b"), time.Hour)
	require.NoError(t, err)
	require.True(t, claimed, "a released key is free for any request")
}

func TestSnapshotRestores(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := idemfake.New()
	c := idempotency.Claim{Key: idempotency.Key{GameID: uuid.New(), Environment: "live", Scope: "s", Key: "k"}, Token: uuid.New()}
	_, _, err := r.ClaimKey(ctx, c, []byte("a"), time.Hour)
	require.NoError(t, err)

	restore := r.Snapshot()
	require.NoError(t, r.CompleteKey(ctx, c, []byte(`"x"`), ""))
	restore()

	rec, claimed, err := r.ClaimKey(ctx, idempotency.Claim{Key: c.Key, Token: uuid.New()}, []byte("a"), time.Hour)
	require.NoError(t, err)
	require.False(t, claimed)
	require.False(t, rec.Done, "the completion was undone")
	require.NoError(t, r.CompleteKey(ctx, c, []byte(`"y"`), ""), "the claim holds the key again")
}
