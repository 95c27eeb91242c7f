// Package playerstest is the contract of players.Repo: one suite of cases that every
// implementation passes, run on the in-memory fake (playersfake) and on PostgreSQL
// (adapters/postgres), so that core tests on the fake hold on the database too.
//
// Where the two still differ, the suite says so rather than hiding it:
//   - PostgreSQL's now() is the time its transaction began, so the players a transaction
//     changes share one UpdatedAt; the fake's clock moves at each write. The suite asserts
//     only that UpdatedAt does not go back.
//   - Of two codes of a phone created at the same time, LatestOTP returns either on
//     PostgreSQL and the last inserted on the fake; the suite gives codes distinct times.
//   - The fake keeps a saved theme as given; PostgreSQL's jsonb normalises its spacing and key
//     order. The suite compares themes as JSON.
package playerstest

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/players"
	"github.com/rewardsco/rewards/core/store"
	"github.com/rewardsco/rewards/core/store/contract"
	"github.com/rewardsco/rewards/core/studio"
)

// Harness is one players.Repo under test and the rows of other modules its tables refer to.
type Harness struct {
	Store store.Of[players.Repo]
	// NewGame returns a new game's id.
	NewGame func(t *testing.T) uuid.UUID
}

// Run runs every case of the contract, each on a Harness of its own from open.
func Run(t *testing.T, open func(t *testing.T) Harness) {
	contract.Run(t, func(t *testing.T) bundle {
		h := open(t)
		return bundle{Harness: h, ctx: context.Background(), scope: players.Scope{GameID: h.NewGame(t), Environment: studio.Test},
			start: time.Now().Truncate(time.Microsecond)}
	}, cases)
}

// bundle is a case's harness with a scope of its own.
type bundle struct {
	Harness
	ctx   context.Context
	scope players.Scope
	start time.Time
}

func (b bundle) repo() players.Repo { return b.Store.Repo() }

func (b bundle) create(t *testing.T, u string) players.Player {
	t.Helper()
	c, err := b.repo().CreateWithUUID(b.ctx, b.scope, u)
	require.NoError(t, err)
	require.True(t, c.Created)
	return c.Player
}

// at is a time as the storage keeps it (microseconds), some minutes from the case's start.
func (b bundle) at(minutes int) time.Time {
	return b.start.Add(time.Duration(minutes) * time.Minute)
}

func requireSameTime(t *testing.T, want, got time.Time) {
	t.Helper()
	require.True(t, want.Equal(got), "want %s, got %s", want, got)
}

const phone = "+919812345678"

var cases = []contract.Case[bundle]{
	{Name: "CreateWithUUIDOncePerScope", Run: func(t *testing.T, b bundle) {
		p := b.create(t, "hero-1")
		require.NotEqual(t, uuid.Nil, p.ID)
		require.Equal(t, b.scope.GameID, p.GameID)
		require.Equal(t, b.scope.Environment, p.Environment)
		require.Equal(t, "hero-1", *p.UUID)
		require.Nil(t, p.Phone)
		require.Equal(t, []players.Address{}, p.Addresses)
		require.False(t, p.IsBlocked)
		require.Nil(t, p.CookieConsentAt)
		require.False(t, p.CreatedAt.IsZero())

		again, err := b.repo().CreateWithUUID(b.ctx, b.scope, "hero-1")
		require.NoError(t, err)
		require.False(t, again.Created)
		require.Equal(t, p, again.Player)

		live, err := b.repo().CreateWithUUID(b.ctx, players.Scope{GameID: b.scope.GameID, Environment: studio.Live}, "hero-1")
		require.NoError(t, err)
		require.True(t, live.Created, "the other environment is another space")
		require.NotEqual(t, p.ID, live.ID)

		got, err := b.repo().GetByUUID(b.ctx, b.scope, "hero-1")
		require.NoError(t, err)
		require.Equal(t, p, got)
		got, err = b.repo().Get(b.ctx, b.scope, p.ID)
		require.NoError(t, err)
		require.Equal(t, p, got)
	}},
	{Name: "CreateWithUUIDTakesOneTo128Characters", Run: func(t *testing.T, b bundle) {
		for _, u := range []string{"", strings.Repeat("x", 129), strings.Repeat("é", 129)} {
			_, err := b.repo().CreateWithUUID(b.ctx, b.scope, u)
			require.Error(t, err, "%d characters", utf8.RuneCountInString(u))
		}
		b.create(t, strings.Repeat("é", 128)) // 256 bytes
	}},
	{Name: "ConcurrentCreatesMakeOnePlayer", Run: func(t *testing.T, b bundle) {
		var wg sync.WaitGroup
		ids := make([]uuid.UUID, 8)
		created := make([]bool, 8)
		for i := range ids {
			wg.Go(func() {
				c, err := b.repo().CreateWithUUID(b.ctx, b.scope, "racer")
				if err != nil {
					t.Errorf("create: %v", err)
					return
				}
				ids[i], created[i] = c.ID, c.Created
			})
		}
		wg.Wait()
		n := 0
		for i := range ids {
			require.Equal(t, ids[0], ids[i])
			if created[i] {
				n++
			}
		}
		require.Equal(t, 1, n, "exactly one call created the player")
	}},
	{Name: "GetOrCreateByPhone", Run: func(t *testing.T, b bundle) {
		p, err := b.repo().GetOrCreateByPhone(b.ctx, b.scope, phone)
		require.NoError(t, err)
		require.Equal(t, phone, *p.Phone)
		require.Nil(t, p.UUID)
		again, err := b.repo().GetOrCreateByPhone(b.ctx, b.scope, phone)
		require.NoError(t, err)
		require.Equal(t, p, again)
		got, err := b.repo().GetByPhone(b.ctx, b.scope, phone)
		require.NoError(t, err)
		require.Equal(t, p, got)
		other, err := b.repo().GetOrCreateByPhone(b.ctx, players.Scope{GameID: b.NewGame(t), Environment: studio.Test}, phone)
		require.NoError(t, err)
		require.NotEqual(t, p.ID, other.ID, "another game is another space")
	}},
	{Name: "NotFoundOutsideTheScope", Run: func(t *testing.T, b bundle) {
		p := b.create(t, "hero")
		for _, s := range []players.Scope{
			{GameID: b.NewGame(t), Environment: studio.Test},
			{GameID: b.scope.GameID, Environment: studio.Live},
		} {
			_, err := b.repo().Get(b.ctx, s, p.ID)
			require.ErrorIs(t, err, players.ErrPlayerNotFound)
			_, err = b.repo().GetByUUID(b.ctx, s, "hero")
			require.ErrorIs(t, err, players.ErrPlayerNotFound)
		}
		_, err := b.repo().Get(b.ctx, b.scope, uuid.New())
		require.ErrorIs(t, err, players.ErrPlayerNotFound)
		_, err = b.repo().GetByPhone(b.ctx, b.scope, phone)
		require.ErrorIs(t, err, players.ErrPlayerNotFound)
	}},
	{Name: "UnknownPlayerIsNotFoundByEveryChange", Run: func(t *testing.T, b bundle) {
		id := uuid.New()
		_, err := b.repo().UpdateProfile(b.ctx, players.Player{ID: id, Name: "Nobody"})
		require.ErrorIs(t, err, players.ErrPlayerNotFound)
		_, _, err = b.repo().SetPicture(b.ctx, id, "pictures/x.png")
		require.ErrorIs(t, err, players.ErrPlayerNotFound)
		_, err = b.repo().SetCookieConsent(b.ctx, id)
		require.ErrorIs(t, err, players.ErrPlayerNotFound)
		_, err = b.repo().Block(b.ctx, id)
		require.ErrorIs(t, err, players.ErrPlayerNotFound)
	}},
	{Name: "UpdateProfile", Run: func(t *testing.T, b bundle) {
		p := b.create(t, "hero")
		addresses := []players.Address{{Name: "Home", Line1: "12 MG Road", City: "Bengaluru", State: "Karnataka", PinCode: "560001", Default: true}}
		in := p
		in.Name, in.Email, in.ContactPhone, in.Addresses = "Asha", "asha@example.com", "+919800000000", addresses
		got, err := b.repo().UpdateProfile(b.ctx, in)
		require.NoError(t, err)
		require.Equal(t, "Asha", got.Name)
		require.Equal(t, "asha@example.com", got.Email)
		require.Equal(t, "+919800000000", got.ContactPhone)
		require.Equal(t, addresses, got.Addresses)
		require.False(t, got.UpdatedAt.Before(p.UpdatedAt))
		read, err := b.repo().Get(b.ctx, b.scope, p.ID)
		require.NoError(t, err)
		require.Equal(t, got, read)

		in.Addresses = nil
		got, err = b.repo().UpdateProfile(b.ctx, in)
		require.NoError(t, err)
		require.Equal(t, []players.Address{}, got.Addresses, "no addresses is an empty list")
	}},
	{Name: "SetPictureReturnsTheKeyItReplaced", Run: func(t *testing.T, b bundle) {
		p := b.create(t, "hero")
		got, previous, err := b.repo().SetPicture(b.ctx, p.ID, "pictures/a.png")
		require.NoError(t, err)
		require.Equal(t, "", previous)
		require.Equal(t, "pictures/a.png", got.PictureKey)
		_, previous, err = b.repo().SetPicture(b.ctx, p.ID, "pictures/b.png")
		require.NoError(t, err)
		require.Equal(t, "pictures/a.png", previous)
	}},
	{Name: "CookieConsentKeepsTheFirstTime", Run: func(t *testing.T, b bundle) {
		p := b.create(t, "hero")
		first, err := b.repo().SetCookieConsent(b.ctx, p.ID)
		require.NoError(t, err)
		require.NotNil(t, first.CookieConsentAt)
		second, err := b.repo().SetCookieConsent(b.ctx, p.ID)
		require.NoError(t, err)
		requireSameTime(t, *first.CookieConsentAt, *second.CookieConsentAt)
	}},
	{Name: "Block", Run: func(t *testing.T, b bundle) {
		p := b.create(t, "hero")
		got, err := b.repo().Block(b.ctx, p.ID)
		require.NoError(t, err)
		require.True(t, got.IsBlocked)
		read, err := b.repo().Get(b.ctx, b.scope, p.ID)
		require.NoError(t, err)
		require.True(t, read.IsBlocked)
	}},
	{Name: "LatestOTP", Run: func(t *testing.T, b bundle) {
		_, err := b.repo().LatestOTP(b.ctx, b.scope, phone)
		require.ErrorIs(t, err, players.ErrOTPInvalid, "no code sent")
		require.NoError(t, b.repo().InsertOTP(b.ctx, b.scope, phone, []byte("old"), b.at(5), b.at(0)))
		require.NoError(t, b.repo().InsertOTP(b.ctx, b.scope, phone, []byte("new"), b.at(6), b.at(1)))
		require.NoError(t, b.repo().InsertOTP(b.ctx, b.scope, "+919800000001", []byte("other phone"), b.at(7), b.at(2)))
		require.NoError(t, b.repo().InsertOTP(b.ctx, players.Scope{GameID: b.scope.GameID, Environment: studio.Live}, phone, []byte("live"), b.at(7), b.at(2)))

		code, err := b.repo().LatestOTP(b.ctx, b.scope, phone)
		require.NoError(t, err)
		require.Equal(t, []byte("new"), code.Hash)
		require.Equal(t, 0, code.Attempts)
		require.False(t, code.Used)
		requireSameTime(t, b.at(6), code.ExpiresAt)

		require.NoError(t, b.repo().OTPFailed(b.ctx, b.scope, phone, code.ID, b.at(1)))
		require.NoError(t, b.repo().OTPFailed(b.ctx, b.scope, phone, code.ID, b.at(1)))
		require.NoError(t, b.repo().OTPUsed(b.ctx, code.ID))
		got, err := b.repo().LatestOTP(b.ctx, b.scope, phone)
		require.NoError(t, err)
		require.Equal(t, code.ID, got.ID)
		require.Equal(t, 2, got.Attempts)
		require.True(t, got.Used)
	}},
	{Name: "CountOTPFailuresFromSince", Run: func(t *testing.T, b bundle) {
		require.NoError(t, b.repo().InsertOTP(b.ctx, b.scope, phone, []byte("h"), b.at(5), b.at(0)))
		code, err := b.repo().LatestOTP(b.ctx, b.scope, phone)
		require.NoError(t, err)
		for _, m := range []int{-10, 0, 3} {
			require.NoError(t, b.repo().OTPFailed(b.ctx, b.scope, phone, code.ID, b.at(m)))
		}
		for since, want := range map[int]int64{-20: 3, -10: 3, -9: 2, 0: 2, 4: 0} {
			n, err := b.repo().CountOTPFailures(b.ctx, b.scope, phone, b.at(since))
			require.NoError(t, err)
			require.Equal(t, want, n, "failures at or after %d min", since)
		}
		n, err := b.repo().CountOTPFailures(b.ctx, b.scope, "+919800000001", b.at(-20))
		require.NoError(t, err)
		require.Zero(t, n)
	}},
	{Name: "OTPSendStats", Run: func(t *testing.T, b bundle) {
		stats, err := b.repo().OTPSendStats(b.ctx, b.scope, phone, b.at(-60))
		require.NoError(t, err)
		require.Zero(t, stats.Sent)
		requireSameTime(t, b.at(-60), stats.FirstSentAt)
		requireSameTime(t, b.at(-60), stats.LastSentAt)

		for _, m := range []int{-30, -20, -10} {
			require.NoError(t, b.repo().InsertOTP(b.ctx, b.scope, phone, []byte("h"), b.at(m+5), b.at(m)))
		}
		require.NoError(t, b.repo().InsertOTP(b.ctx, b.scope, "+919800000001", []byte("h"), b.at(0), b.at(-5)))

		stats, err = b.repo().OTPSendStats(b.ctx, b.scope, phone, b.at(-20))
		require.NoError(t, err)
		require.Equal(t, int64(2), stats.Sent, "a code sent at since counts")
		requireSameTime(t, b.at(-20), stats.FirstSentAt)
		requireSameTime(t, b.at(-10), stats.LastSentAt)

		scope, err := b.repo().OTPScopeSendStats(b.ctx, b.scope, b.at(-20))
		require.NoError(t, err)
		require.Equal(t, int64(2), scope.Sent, "every phone, and a code sent at since does not count")
		requireSameTime(t, b.at(-10), scope.FirstSentAt)
		requireSameTime(t, b.at(-5), scope.LastSentAt)

		scope, err = b.repo().OTPScopeSendStats(b.ctx, b.scope, b.at(0))
		require.NoError(t, err)
		require.Zero(t, scope.Sent)
		requireSameTime(t, b.at(0), scope.FirstSentAt)
		requireSameTime(t, b.at(0), scope.LastSentAt)
	}},
	{Name: "FailureRun", Run: func(t *testing.T, b bundle) {
		run, err := b.repo().OTPFailureRun(b.ctx, b.scope, phone)
		require.NoError(t, err)
		require.Equal(t, players.FailureRun{}, run, "none yet")

		require.NoError(t, b.repo().SaveOTPFailureRun(b.ctx, b.scope, phone, players.FailureRun{Failures: 3}))
		run, err = b.repo().OTPFailureRun(b.ctx, b.scope, phone)
		require.NoError(t, err)
		require.Equal(t, 3, run.Failures)
		require.True(t, run.LockedUntil.IsZero())

		require.NoError(t, b.repo().SaveOTPFailureRun(b.ctx, b.scope, phone, players.FailureRun{Failures: 100, LockedUntil: b.at(60)}))
		run, err = b.repo().OTPFailureRun(b.ctx, b.scope, phone)
		require.NoError(t, err)
		require.Equal(t, 100, run.Failures)
		requireSameTime(t, b.at(60), run.LockedUntil)

		other, err := b.repo().OTPFailureRun(b.ctx, b.scope, "+919800000001")
		require.NoError(t, err)
		require.Equal(t, players.FailureRun{}, other)
		require.Error(t, b.repo().SaveOTPFailureRun(b.ctx, b.scope, phone, players.FailureRun{Failures: -1}))
	}},
	{Name: "StoreSettings", Run: func(t *testing.T, b bundle) {
		got, err := b.repo().StoreSettings(b.ctx, b.scope.GameID)
		require.NoError(t, err)
		require.Equal(t, players.DefaultStoreSettings, got, "defaults until saved")

		in := players.StoreSettings{GcommerceEnabled: true, DefaultLandingPage: "gcommerce", Theme: []byte(`{"primary": "#ff0000", "dark": true}`)}
		saved, err := b.repo().SaveStoreSettings(b.ctx, b.scope.GameID, in)
		require.NoError(t, err)
		for _, s := range []players.StoreSettings{saved, must(b.repo().StoreSettings(b.ctx, b.scope.GameID))} {
			require.False(t, s.RewardsEnabled)
			require.True(t, s.GcommerceEnabled)
			require.Equal(t, "gcommerce", s.DefaultLandingPage)
			require.JSONEq(t, string(in.Theme), string(s.Theme))
		}
		other, err := b.repo().StoreSettings(b.ctx, b.NewGame(t))
		require.NoError(t, err)
		require.Equal(t, players.DefaultStoreSettings, other)
	}},
	{Name: "RollbackLeavesNothing", Run: func(t *testing.T, b bundle) {
		err := b.Store.InTx(b.ctx, func(r players.Repo) error {
			c, err := r.CreateWithUUID(b.ctx, b.scope, "ghost")
			if err != nil {
				return err
			}
			got, err := r.Get(b.ctx, b.scope, c.ID)
			if err != nil {
				return err
			}
			require.Equal(t, c.Player, got, "the transaction sees its own player")
			if err := r.InsertOTP(b.ctx, b.scope, phone, []byte("h"), b.at(5), b.at(0)); err != nil {
				return err
			}
			return contract.ErrRollback
		})
		require.ErrorIs(t, err, contract.ErrRollback)
		_, err = b.repo().GetByUUID(b.ctx, b.scope, "ghost")
		require.ErrorIs(t, err, players.ErrPlayerNotFound)
		_, err = b.repo().LatestOTP(b.ctx, b.scope, phone)
		require.ErrorIs(t, err, players.ErrOTPInvalid)
	}},
	{Name: "LockPhoneSerialisesSends", Run: func(t *testing.T, b bundle) {
		// Each transaction sends a code only when the phone has none: under LockPhone (and
		// LockOTPScope after it) exactly one of them does.
		var wg sync.WaitGroup
		for range 6 {
			wg.Go(func() {
				err := b.Store.InTx(b.ctx, func(r players.Repo) error {
					if err := r.LockPhone(b.ctx, b.scope, phone); err != nil {
						return err
					}
					if err := r.LockOTPScope(b.ctx, b.scope); err != nil {
						return err
					}
					stats, err := r.OTPSendStats(b.ctx, b.scope, phone, b.at(-60))
					if err != nil || stats.Sent > 0 {
						return err
					}
					return r.InsertOTP(b.ctx, b.scope, phone, []byte("h"), b.at(5), b.at(0))
				})
				if err != nil {
					t.Errorf("send: %v", err)
				}
			})
		}
		wg.Wait()
		stats, err := b.repo().OTPSendStats(b.ctx, b.scope, phone, b.at(-60))
		require.NoError(t, err)
		require.Equal(t, int64(1), stats.Sent)
	}},
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
