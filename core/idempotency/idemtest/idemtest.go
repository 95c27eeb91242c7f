// Package idemtest is the contract of idempotency.Repo: one suite of cases that every
// implementation passes, run on the in-memory fake (idemfake) and on PostgreSQL
// (adapters/postgres), so that idempotency.Do tested on the fake holds on the database too.
//
// Where the two still differ, the suite says so rather than hiding it: in a transaction,
// PostgreSQL sends CompleteKey with the transaction's next statement or its COMMIT, so a lost
// claim returns nil there and fails that statement or the COMMIT with ErrClaimLost; the fake
// returns ErrClaimLost from CompleteKey itself. Either way a transaction function that returns
// CompleteKey's error (as idempotency.Do does) fails with ErrClaimLost and commits nothing,
// which is what the suite asserts.
package idemtest

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/idempotency"
	"github.com/rewardsco/rewards/core/store"
	"github.com/rewardsco/rewards/core/store/contract"
)

// Run runs every case of the contract, each on a store of its own from open.
func Run(t *testing.T, open func(t *testing.T) store.Of[idempotency.Repo]) {
	contract.Run(t, func(t *testing.T) bundle {
		key := idempotency.Key{GameID: uuid.New(), Environment: "test", Scope: "player:" + uuid.NewString(), Key: "order-1"}
		return bundle{Of: open(t), ctx: context.Background(), key: key}
	}, cases)
}

type bundle struct {
	store.Of[idempotency.Repo]
	ctx context.Context
	key idempotency.Key
}

func (b bundle) repo() idempotency.Repo { return b.Repo() }

// claim claims the bundle's key for hash with a new token.
func (b bundle) claim(t *testing.T, hash string, staleAfter time.Duration) (idempotency.Claim, idempotency.Record, bool) {
	t.Helper()
	c := idempotency.Claim{Key: b.key, Token: uuid.New()}
	rec, claimed, err := b.repo().ClaimKey(b.ctx, c, []byte(hash), staleAfter)
	require.NoError(t, err)
	return c, rec, claimed
}

// requireRecord checks rec, comparing results as JSON (PostgreSQL keeps them as jsonb).
func requireRecord(t *testing.T, want, rec idempotency.Record) {
	t.Helper()
	if want.Result != nil {
		require.JSONEq(t, string(want.Result), string(rec.Result))
		want.Result, rec.Result = nil, nil
	}
	require.Equal(t, want, rec)
}

// Ages of a claim: none made in a case is an hour old, and every one is older than an hour
// from now.
const (
	fresh = time.Hour
	stale = -time.Hour
)

var cases = []contract.Case[bundle]{
	{Name: "ARunningKeyIsNotClaimedTwice", Run: func(t *testing.T, b bundle) {
		_, rec, claimed := b.claim(t, "h1", fresh)
		require.True(t, claimed)
		require.Equal(t, idempotency.Record{}, rec)
		_, rec, claimed = b.claim(t, "h1", fresh)
		require.False(t, claimed)
		require.Equal(t, idempotency.Record{RequestHash: []byte("h1")}, rec)
		_, rec, claimed = b.claim(t, "h2", fresh)
		require.False(t, claimed)
		require.Equal(t, idempotency.Record{RequestHash: []byte("h1")}, rec, "the record has the first request's hash")
	}},
	{Name: "KeysAreScoped", Run: func(t *testing.T, b bundle) {
		b.claim(t, "h", fresh)
		for _, k := range []idempotency.Key{
			{GameID: uuid.New(), Environment: b.key.Environment, Scope: b.key.Scope, Key: b.key.Key},
			{GameID: b.key.GameID, Environment: "live", Scope: b.key.Scope, Key: b.key.Key},
			{GameID: b.key.GameID, Environment: b.key.Environment, Scope: "player:other", Key: b.key.Key},
			{GameID: b.key.GameID, Environment: b.key.Environment, Scope: b.key.Scope, Key: "order-2"},
		} {
			_, claimed, err := b.repo().ClaimKey(b.ctx, idempotency.Claim{Key: k, Token: uuid.New()}, []byte("h"), fresh)
			require.NoError(t, err)
			require.True(t, claimed, "%+v", k)
		}
	}},
	{Name: "AKeyHasOneTo255Characters", Run: func(t *testing.T, b bundle) {
		for _, key := range []string{"", strings.Repeat("k", 256), strings.Repeat("ü", 256)} {
			k := b.key
			k.Key = key
			_, _, err := b.repo().ClaimKey(b.ctx, idempotency.Claim{Key: k, Token: uuid.New()}, []byte("h"), fresh)
			require.Error(t, err, "key of %d characters", utf8.RuneCountInString(key))
		}
		b.key.Key = strings.Repeat("ü", 255) // 510 bytes
		_, _, claimed := b.claim(t, "h", fresh)
		require.True(t, claimed)
	}},
	{Name: "CompleteKeepsTheOutcomeForReplay", Run: func(t *testing.T, b bundle) {
		c, _, _ := b.claim(t, "h", fresh)
		require.NoError(t, b.repo().CompleteKey(b.ctx, c, []byte(`{"id": 7, "balance": 30}`), ""))
		_, rec, claimed := b.claim(t, "h", stale)
		require.False(t, claimed, "a finished key is never taken over")
		requireRecord(t, idempotency.Record{RequestHash: []byte("h"), Done: true, Result: []byte(`{"id": 7, "balance": 30}`)}, rec)

		b.key.Key = "refused"
		c, _, _ = b.claim(t, "h", fresh)
		require.NoError(t, b.repo().CompleteKey(b.ctx, c, []byte(`{"code": "INSUFFICIENT_BALANCE"}`), "INSUFFICIENT_BALANCE"))
		_, rec, _ = b.claim(t, "h", fresh)
		requireRecord(t, idempotency.Record{RequestHash: []byte("h"), Done: true, Result: []byte(`{"code": "INSUFFICIENT_BALANCE"}`),
			ErrorCode: "INSUFFICIENT_BALANCE"}, rec)
	}},
	{Name: "OnlyTheHolderCompletesOnce", Run: func(t *testing.T, b bundle) {
		c, _, _ := b.claim(t, "h", fresh)
		other := idempotency.Claim{Key: b.key, Token: uuid.New()}
		require.ErrorIs(t, b.repo().CompleteKey(b.ctx, other, []byte(`1`), ""), idempotency.ErrClaimLost)
		require.NoError(t, b.repo().CompleteKey(b.ctx, c, []byte(`2`), ""))
		require.ErrorIs(t, b.repo().CompleteKey(b.ctx, c, []byte(`3`), ""), idempotency.ErrClaimLost, "a key completes once")
		_, rec, _ := b.claim(t, "h", fresh)
		requireRecord(t, idempotency.Record{RequestHash: []byte("h"), Done: true, Result: []byte(`2`)}, rec)

		unknown := idempotency.Claim{Key: idempotency.Key{GameID: uuid.New(), Environment: "test", Scope: "s", Key: "k"}, Token: uuid.New()}
		require.ErrorIs(t, b.repo().CompleteKey(b.ctx, unknown, []byte(`1`), ""), idempotency.ErrClaimLost)
	}},
	{Name: "ReleaseFreesARunningKeyOfItsHolder", Run: func(t *testing.T, b bundle) {
		c, _, _ := b.claim(t, "h1", fresh)
		require.NoError(t, b.repo().ReleaseKey(b.ctx, idempotency.Claim{Key: b.key, Token: uuid.New()}), "another token: nothing")
		_, _, claimed := b.claim(t, "h1", fresh)
		require.False(t, claimed)
		require.NoError(t, b.repo().ReleaseKey(b.ctx, c))
		c, _, claimed = b.claim(t, "h2", fresh)
		require.True(t, claimed, "a released key is free for any request")

		require.NoError(t, b.repo().CompleteKey(b.ctx, c, []byte(`1`), ""))
		require.NoError(t, b.repo().ReleaseKey(b.ctx, c), "a finished key: nothing")
		_, rec, claimed := b.claim(t, "h2", fresh)
		require.False(t, claimed)
		require.True(t, rec.Done)
	}},
	{Name: "AStaleClaimIsTakenOverBySameRequest", Run: func(t *testing.T, b bundle) {
		first, _, _ := b.claim(t, "h", fresh)
		_, _, claimed := b.claim(t, "h", fresh)
		require.False(t, claimed, "not before it is stale")
		_, rec, claimed := b.claim(t, "other", stale)
		require.False(t, claimed, "only by the same request")
		require.Equal(t, idempotency.Record{RequestHash: []byte("h")}, rec)
		retry, _, claimed := b.claim(t, "h", stale)
		require.True(t, claimed)

		require.ErrorIs(t, b.repo().CompleteKey(b.ctx, first, []byte(`1`), ""), idempotency.ErrClaimLost, "the old claim may not complete")
		require.NoError(t, b.repo().ReleaseKey(b.ctx, first))
		_, _, claimed = b.claim(t, "h", fresh)
		require.False(t, claimed, "the old claim's release did nothing")
		require.NoError(t, b.repo().CompleteKey(b.ctx, retry, []byte(`2`), ""))
	}},
	{Name: "ConcurrentClaimsOneWins", Run: func(t *testing.T, b bundle) {
		var wg sync.WaitGroup
		var mu sync.Mutex
		won := 0
		for range 8 {
			wg.Go(func() {
				_, claimed, err := b.repo().ClaimKey(b.ctx, idempotency.Claim{Key: b.key, Token: uuid.New()}, []byte("h"), fresh)
				if err != nil {
					t.Errorf("claim: %v", err)
					return
				}
				mu.Lock()
				defer mu.Unlock()
				if claimed {
					won++
				}
			})
		}
		wg.Wait()
		require.Equal(t, 1, won)
	}},
	{Name: "PurgeDeletesKeysOlderThan", Run: func(t *testing.T, b bundle) {
		done, _, _ := b.claim(t, "h", fresh)
		require.NoError(t, b.repo().CompleteKey(b.ctx, done, []byte(`1`), ""))
		b.key.Key = "running"
		b.claim(t, "h", fresh)

		n, err := b.repo().PurgeKeys(b.ctx, time.Hour)
		require.NoError(t, err)
		require.Zero(t, n, "both are younger than an hour")
		n, err = b.repo().PurgeKeys(b.ctx, -time.Hour)
		require.NoError(t, err)
		require.Equal(t, int64(2), n, "running or done")
		_, _, claimed := b.claim(t, "other", fresh)
		require.True(t, claimed)
	}},
	{Name: "CompleteCommitsWithTheTransaction", Run: func(t *testing.T, b bundle) {
		c, _, _ := b.claim(t, "h", fresh)
		err := b.InTx(b.ctx, func(r idempotency.Repo) error {
			if err := r.CompleteKey(b.ctx, c, []byte(`"first"`), ""); err != nil {
				return err
			}
			return contract.ErrRollback
		})
		require.ErrorIs(t, err, contract.ErrRollback)
		_, rec, _ := b.claim(t, "h", fresh)
		require.Equal(t, idempotency.Record{RequestHash: []byte("h")}, rec, "a rollback leaves the key running")

		err = b.InTx(b.ctx, func(r idempotency.Repo) error {
			if err := r.CompleteKey(b.ctx, c, []byte(`"second"`), ""); err != nil {
				return err
			}
			rec, claimed, err := r.ClaimKey(b.ctx, idempotency.Claim{Key: b.key, Token: uuid.New()}, []byte("h"), stale)
			require.False(t, claimed)
			require.True(t, rec.Done, "the transaction sees its own completion")
			return err
		})
		require.NoError(t, err, "the claim still holds the key")
		_, rec, _ = b.claim(t, "h", fresh)
		requireRecord(t, idempotency.Record{RequestHash: []byte("h"), Done: true, Result: []byte(`"second"`)}, rec)
	}},
	{Name: "ALostClaimFailsTheTransaction", Run: func(t *testing.T, b bundle) {
		b.claim(t, "h", fresh)
		lost := idempotency.Claim{Key: b.key, Token: uuid.New()}
		other := idempotency.Claim{Key: idempotency.Key{GameID: b.key.GameID, Environment: b.key.Environment, Scope: b.key.Scope, Key: "other"},
			Token: uuid.New()}
		err := b.InTx(b.ctx, func(r idempotency.Repo) error {
			if _, _, err := r.ClaimKey(b.ctx, other, []byte("h"), fresh); err != nil {
				return err
			}
			return r.CompleteKey(b.ctx, lost, []byte(`1`), "")
		})
		require.ErrorIs(t, err, idempotency.ErrClaimLost)
		_, claimed, err := b.repo().ClaimKey(b.ctx, idempotency.Claim{Key: other.Key, Token: uuid.New()}, []byte("h"), fresh)
		require.NoError(t, err)
		require.True(t, claimed, "the transaction's other work rolled back")
		_, rec, _ := b.claim(t, "h", fresh)
		require.False(t, rec.Done)
	}},
}
