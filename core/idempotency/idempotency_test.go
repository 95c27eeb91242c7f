package idempotency_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/coins/coinsfake"
	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/idempotency"
	"github.com/rewardsco/rewards/core/idempotency/idemfake"
	"github.com/rewardsco/rewards/core/store"
	"github.com/rewardsco/rewards/core/store/memstore"
)

// errRefused is a business refusal: an outcome that is replayed.
var errRefused = errs.New(errs.Invalid, "TOO_MANY_WIDGETS", "too many widgets")

// bundle runs idempotent work that credits coins: the coins fake is the store whose writes
// must commit with the key's outcome, or not at all.
type bundle struct {
	keeper *idempotency.Keeper
	keys   *idemfake.Repo
	coins  *coinsfake.Repo
	cs     store.Of[coins.Repo]
	coin   coins.Coin
	player uuid.UUID
	runs   atomic.Int64 // how often the work ran
}

func setup(t *testing.T) *bundle {
	t.Helper()
	runner := &memstore.Runner{}
	b := &bundle{keys: idemfake.New(), coins: coinsfake.New(), player: uuid.New()}
	b.keeper = idempotency.NewKeeper(runner, memstore.New[idempotency.Repo](runner, b.keys))
	b.cs = memstore.New[coins.Repo](runner, b.coins)
	var err error
	b.coin, err = b.coins.CreateCoin(context.Background(), coins.Coin{GameID: uuid.New(), Name: "Gems", CoinsPerUnit: coins.DefaultCoinsPerUnit})
	require.NoError(t, err)
	return b
}

// request is a request with key k (none when empty) and body body.
func (b *bundle) request(k string, body any) idempotency.Request {
	return idempotency.Request{
		Key: idempotency.Key{GameID: b.coin.GameID, Environment: "test", Scope: "player:" + b.player.String(), Key: k},
		Op:  "test.credit", Body: body,
	}
}

// credit is work that credits amount, then fails with fail when it is set.
func (b *bundle) credit(amount int64, fail error) func(context.Context, store.Tx) (coins.Transaction, error) {
	return func(ctx context.Context, t store.Tx) (coins.Transaction, error) {
		b.runs.Add(1)
		tx, err := b.cs.WithTx(t).ApplyMovement(ctx, coins.Movement{GameID: b.coin.GameID, Environment: "test",
			PlayerID: b.player, CoinID: b.coin.ID, Amount: amount, Reason: "TEST"}, coins.Credit, coins.EventCredited)
		if err != nil {
			return tx, err
		}
		return tx, fail
	}
}

func (b *bundle) do(req idempotency.Request, work func(context.Context, store.Tx) (coins.Transaction, error)) (coins.Transaction, bool, error) {
	return idempotency.Do(context.Background(), b.keeper, req, work)
}

func (b *bundle) balance(t *testing.T) int64 {
	t.Helper()
	funds, err := b.coins.Funds(context.Background(), b.coin.GameID, b.player)
	require.NoError(t, err)
	return funds[0].Balance
}

func TestNoKeyRunsEveryTime(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for range 3 {
		_, replayed, err := b.do(b.request("", 5), b.credit(5, nil))
		require.NoError(t, err)
		require.False(t, replayed)
	}
	require.EqualValues(t, 3, b.runs.Load())
	require.EqualValues(t, 15, b.balance(t))
}

func TestSameKeyAndBodyReplays(t *testing.T) {
	t.Parallel()
	b := setup(t)
	first, replayed, err := b.do(b.request("k1", 5), b.credit(5, nil))
	require.NoError(t, err)
	require.False(t, replayed)

	again, replayed, err := b.do(b.request("k1", 5), b.credit(5, nil))
	require.NoError(t, err)
	require.True(t, replayed)
	require.Equal(t, first.ID, again.ID)
	require.Equal(t, first.BalanceAfter, again.BalanceAfter)
	require.True(t, first.CreatedAt.Equal(again.CreatedAt))
	require.EqualValues(t, 1, b.runs.Load(), "the work is not run again")
	require.EqualValues(t, 5, b.balance(t))
}

func TestKeyReusedForAnotherRequest(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		req  func(b *bundle) idempotency.Request
	}{
		{"another body", func(b *bundle) idempotency.Request { return b.request("k1", 6) }},
		{"another operation", func(b *bundle) idempotency.Request {
			r := b.request("k1", 5)
			r.Op = "test.debit"
			return r
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			_, _, err := b.do(b.request("k1", 5), b.credit(5, nil))
			require.NoError(t, err)
			_, _, err = b.do(tc.req(b), b.credit(6, nil))
			require.ErrorIs(t, err, idempotency.ErrKeyReused)
			require.Equal(t, errs.Unprocessable, errs.KindOf(err))
			require.EqualValues(t, 1, b.runs.Load())
		})
	}
}

func TestKeysAreScoped(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, _, err := b.do(b.request("k1", 5), b.credit(5, nil))
	require.NoError(t, err)
	other := b.request("k1", 5)
	other.Key.Scope = "player:" + uuid.NewString()
	_, replayed, err := b.do(other, b.credit(5, nil))
	require.NoError(t, err)
	require.False(t, replayed, "the same key in another scope is another request")
	require.EqualValues(t, 2, b.runs.Load())
}

func TestRequestInFlight(t *testing.T) {
	t.Parallel()
	b := setup(t)
	started, release := make(chan struct{}), make(chan struct{})
	type result struct {
		tx  coins.Transaction
		err error
	}
	done := make(chan result)
	go func() {
		work := b.credit(5, nil)
		tx, _, err := b.do(b.request("k1", 5), func(ctx context.Context, t store.Tx) (coins.Transaction, error) {
			close(started)
			<-release
			return work(ctx, t)
		})
		done <- result{tx, err}
	}()

	<-started
	_, _, err := b.do(b.request("k1", 5), b.credit(5, nil))
	require.ErrorIs(t, err, idempotency.ErrInProgress)
	require.Equal(t, errs.Conflict, errs.KindOf(err))
	close(release)
	first := <-done
	require.NoError(t, first.err)

	again, replayed, err := b.do(b.request("k1", 5), b.credit(5, nil))
	require.NoError(t, err)
	require.True(t, replayed, "once the first request finished, its outcome is replayed")
	require.Equal(t, first.tx.ID, again.ID)
	require.EqualValues(t, 1, b.runs.Load())
	require.EqualValues(t, 5, b.balance(t))
}

func TestRefusalIsReplayed(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, replayed, err := b.do(b.request("k1", 5), b.credit(5, errRefused.Withf("at most 3 widgets")))
	require.ErrorIs(t, err, errRefused)
	require.False(t, replayed)
	require.Zero(t, b.balance(t), "the refused work's writes rolled back")

	_, replayed, err = b.do(b.request("k1", 5), b.credit(5, nil))
	require.ErrorIs(t, err, errRefused)
	require.True(t, replayed)
	e, ok := errs.As(err)
	require.True(t, ok)
	require.Equal(t, errs.Invalid, e.Kind)
	require.Equal(t, "at most 3 widgets", e.Message, "the refusal comes back as it was")
	require.EqualValues(t, 1, b.runs.Load())
	require.Zero(t, b.balance(t))
}

func TestInternalErrorReleasesTheKey(t *testing.T) {
	t.Parallel()
	b := setup(t)
	errDown := errors.New("connection reset")
	_, _, err := b.do(b.request("k1", 5), b.credit(5, errDown))
	require.ErrorIs(t, err, errDown)
	require.Zero(t, b.balance(t))

	_, replayed, err := b.do(b.request("k1", 5), b.credit(5, nil))
	require.NoError(t, err)
	require.False(t, replayed, "the retry runs the work afresh")
	require.EqualValues(t, 2, b.runs.Load())

	_, replayed, err = b.do(b.request("k1", 5), b.credit(5, nil))
	require.NoError(t, err)
	require.True(t, replayed)
	require.EqualValues(t, 5, b.balance(t))
}

func TestClaimLostRollsTheWorkBack(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	req := b.request("k1", 5)
	credit := b.credit(5, nil)
	_, _, err := b.do(req, func(ctx context.Context, t store.Tx) (coins.Transaction, error) {
		out, err := credit(ctx, t)
		// A retry takes the key over while this attempt runs, as it would after this attempt
		// stalled past StaleAfter: the key's hash is read back with a claim that cannot match,
		// then claimed with it by a request that sees the key as stale.
		peek, claimed, perr := b.keys.ClaimKey(ctx, idempotency.Claim{Key: req.Key, Token: uuid.New()}, []byte("peek"), idempotency.StaleAfter)
		if perr != nil || claimed {
			return out, errors.New("could not read the key")
		}
		_, claimed, perr = b.keys.ClaimKey(ctx, idempotency.Claim{Key: req.Key, Token: uuid.New()}, peek.RequestHash,
			-idempotency.StaleAfter)
		if perr != nil || !claimed {
			return out, errors.New("could not take the key over")
		}
		return out, err
	})
	require.ErrorIs(t, err, idempotency.ErrClaimLost)
	require.ErrorIs(t, err, idempotency.ErrInProgress, "the client is told to retry")
	require.EqualValues(t, 1, b.runs.Load())
	require.Zero(t, b.balance(t), "the work's credit rolled back with the failed completion")
	list, total, err := b.coins.ListTransactions(ctx, b.player, nil, 10, 0)
	require.NoError(t, err)
	require.Zero(t, total)
	require.Empty(t, list)
	require.Empty(t, b.coins.Events())
}

func TestStaleKeyIsTakenOver(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		age      time.Duration // of the abandoned claim
		body     int
		wantErr  error
		wantRuns int64
	}{
		{name: "stale, same body: a retry runs it", age: idempotency.StaleAfter + time.Second, body: 5, wantRuns: 2},
		{name: "stale, other body: still refused", age: idempotency.StaleAfter + time.Second, body: 6,
			wantErr: idempotency.ErrKeyReused, wantRuns: 1},
		{name: "recent: still in progress", age: idempotency.StaleAfter - time.Minute, body: 5,
			wantErr: idempotency.ErrInProgress, wantRuns: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			// The first holder crashes mid-work, leaving its key running.
			b.keys.SetClock(func() time.Time { return time.Now().Add(-tc.age) })
			require.Panics(t, func() {
				_, _, _ = b.do(b.request("k1", 5), func(context.Context, store.Tx) (coins.Transaction, error) {
					b.runs.Add(1)
					panic("crash")
				})
			})
			b.keys.SetClock(time.Now)

			_, replayed, err := b.do(b.request("k1", tc.body), b.credit(5, nil))
			require.ErrorIs(t, err, tc.wantErr)
			require.False(t, replayed)
			require.Equal(t, tc.wantRuns, b.runs.Load())
		})
	}
}

func TestPurgeRemovesOnlyOldKeys(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, k := range []struct {
		key string
		age time.Duration
	}{
		{"old", idempotency.Retention + time.Minute},
		{"young", idempotency.Retention - time.Minute},
		{"new", 0},
	} {
		b.keys.SetClock(func() time.Time { return time.Now().Add(-k.age) })
		_, _, err := b.do(b.request(k.key, 5), b.credit(5, nil))
		require.NoError(t, err)
	}
	b.keys.SetClock(time.Now)

	n, err := b.keeper.Purge(context.Background())
	require.NoError(t, err)
	require.EqualValues(t, 1, n)

	for _, k := range []struct {
		key          string
		wantReplayed bool
	}{{"old", false}, {"young", true}, {"new", true}} {
		_, replayed, err := b.do(b.request(k.key, 5), b.credit(5, nil))
		require.NoError(t, err)
		require.Equal(t, k.wantReplayed, replayed, "key %s", k.key)
	}
}

// TestStaleCheckUsesTheDatabaseClock: whether a running key is stale is decided by the
// database's clock alone (the key's locked_at against its now()), so an application clock far
// ahead of or behind the database's neither takes a fresh claim over nor keeps a stale one.
func TestStaleCheckUsesTheDatabaseClock(t *testing.T) {
	t.Parallel()
	for _, skew := range []time.Duration{365 * 24 * time.Hour, -365 * 24 * time.Hour, 10 * time.Minute, -10 * time.Minute} {
		t.Run(fmt.Sprintf("database %v from the application", skew), func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			var dbNow atomic.Int64 // the database's clock, far from the application's time.Now
			dbNow.Store(time.Now().Add(skew).UnixNano())
			b.keys.SetClock(func() time.Time { return time.Unix(0, dbNow.Load()) })
			advance := func(d time.Duration) { dbNow.Add(int64(d)) }

			// The first holder crashes mid-work, leaving its key running.
			require.Panics(t, func() {
				_, _, _ = b.do(b.request("k1", 5), func(context.Context, store.Tx) (coins.Transaction, error) {
					b.runs.Add(1)
					panic("crash")
				})
			})

			advance(time.Second)
			_, _, err := b.do(b.request("k1", 5), b.credit(5, nil))
			require.ErrorIs(t, err, idempotency.ErrInProgress, "a fresh claim is not taken over")
			require.EqualValues(t, 1, b.runs.Load())

			advance(idempotency.StaleAfter)
			_, replayed, err := b.do(b.request("k1", 5), b.credit(5, nil))
			require.NoError(t, err, "a stale claim is taken over")
			require.False(t, replayed)
			require.EqualValues(t, 2, b.runs.Load())
			require.EqualValues(t, 5, b.balance(t))
		})
	}
}

// A request whose Again accepts its work's error runs Prepare and the work once more, under the
// same claim of its key (no other request can take it in between), and only once.
func TestAgainRunsTheWorkOnceMoreUnderTheSameClaim(t *testing.T) {
	t.Parallel()
	b := setup(t)
	errStale := errors.New("planned from a stale read")
	for _, key := range []string{"", "k1"} {
		b.runs.Store(0)
		var prepared, asked int
		req := b.request(key, 5)
		req.Prepare = func(context.Context) error { prepared++; return nil }
		req.Again = func(err error) bool { asked++; return errors.Is(err, errStale) }
		fail := errStale
		work := func(ctx context.Context, tx store.Tx) (coins.Transaction, error) {
			if key != "" {
				// The key is still claimed by this request while its work runs again.
				_, _, err := b.do(b.request(key, 5), b.credit(5, nil))
				require.ErrorIs(t, err, idempotency.ErrInProgress)
			}
			f := fail
			fail = nil
			return b.credit(5, f)(ctx, tx)
		}
		_, replayed, err := b.do(req, work)
		require.NoError(t, err, "key %q", key)
		require.False(t, replayed)
		require.Equal(t, 2, prepared, "key %q: prepared again", key)
		require.Equal(t, 1, asked)
		require.EqualValues(t, 2, b.runs.Load(), "key %q: the first run rolled back, the second committed", key)

		// Again says no to a second failure: the work runs twice at most.
		b.runs.Store(0)
		req.Again = func(error) bool { return true }
		_, _, err = b.do(b.request("", 5), func(ctx context.Context, tx store.Tx) (coins.Transaction, error) {
			return b.credit(5, errStale)(ctx, tx)
		})
		require.ErrorIs(t, err, errStale, "a request without Again runs once")
		require.EqualValues(t, 1, b.runs.Load())
		b.runs.Store(0)
		if key != "" {
			req.Key.Key = key + "-failing"
		}
		_, _, err = b.do(req, func(ctx context.Context, tx store.Tx) (coins.Transaction, error) {
			return b.credit(5, errStale)(ctx, tx)
		})
		require.ErrorIs(t, err, errStale)
		require.EqualValues(t, 2, b.runs.Load(), "key %q: twice at most", key)
	}
	require.EqualValues(t, 10, b.balance(t), "each request's one committed run credited once")
}
