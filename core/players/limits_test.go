package players_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/players"
	"github.com/rewardsco/rewards/core/players/playersfake"
	"github.com/rewardsco/rewards/core/studio"
)

// phoneN is the nth of many distinct phones.
func phoneN(i int) string { return fmt.Sprintf("+1415%07d", i) }

// The game-wide cap holds across phones: SMS pumping spreads its sends over many numbers, each
// under the per-phone limits.
func TestRequestOTPGameHourlyCap(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	limit := players.DefaultOTPSendsPerHour
	for i := 0; i < limit; i++ {
		_, err := b.svc.RequestOTP(ctx, b.caller, phoneN(i))
		require.NoError(t, err, "send %d", i+1)
		if i == 0 {
			b.clock.Advance(10 * time.Minute)
		}
	}
	_, err := b.svc.RequestOTP(ctx, b.caller, phoneN(limit))
	require.ErrorIs(t, err, players.ErrOTPGameRateLimited)
	require.Equal(t, 50*time.Minute, retryAfter(t, err), "until the first send leaves the hour")
	require.Zero(t, b.sms.count(phoneN(limit)), "a refused request sends nothing")

	live := b.caller
	live.Environment = studio.Live
	_, err = b.svc.RequestOTP(ctx, live, phoneN(limit))
	require.NoError(t, err, "the other environment has its own cap")
	other := b.caller
	other.GameID = uuid.New()
	_, err = b.svc.RequestOTP(ctx, other, phoneN(limit))
	require.NoError(t, err, "another game has its own cap")

	b.clock.Advance(50 * time.Minute)
	_, err = b.svc.RequestOTP(ctx, b.caller, phoneN(limit))
	require.NoError(t, err, "the first send left the hour")
	_, err = b.svc.RequestOTP(ctx, b.caller, phoneN(limit+1))
	require.ErrorIs(t, err, players.ErrOTPGameRateLimited, "its place is taken again")
}

func TestRequestOTPGameCapIsConfigurable(t *testing.T) {
	t.Parallel()
	b := setup(t, func(c *players.Config) { c.OTPSendsPerHour = 2 })
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		_, err := b.svc.RequestOTP(ctx, b.caller, phoneN(i))
		require.NoError(t, err)
	}
	_, err := b.svc.RequestOTP(ctx, b.caller, phoneN(2))
	require.ErrorIs(t, err, players.ErrOTPGameRateLimited)
	require.Equal(t, time.Hour, retryAfter(t, err))
}

// A refusal for the phone itself comes first: the game-wide cap counts only codes sent.
func TestRequestOTPPhoneLimitsDoNotUseTheGameCap(t *testing.T) {
	t.Parallel()
	b := setup(t, func(c *players.Config) { c.OTPSendsPerHour = 2 })
	ctx := context.Background()
	b.requestCode(t, phone)
	for i := 0; i < 5; i++ {
		_, err := b.svc.RequestOTP(ctx, b.caller, phone)
		require.ErrorIs(t, err, players.ErrOTPResendTooSoon)
	}
	b.requestCode(t, phoneN(1))
}

// failChecks makes n failed checks of phone within the hourly limits: codes with up to
// OTPMaxAttempts wrong tries each, at most OTPMaxFailureHour failures an hour.
func (b *bundle) failChecks(t *testing.T, n int) {
	t.Helper()
	for n > 0 {
		for hour := 0; hour < players.OTPMaxFailureHour && n > 0; {
			k := min(players.OTPMaxAttempts, n, players.OTPMaxFailureHour-hour)
			b.failLogins(t, b.requestCode(t, phone), k)
			n, hour = n-k, hour+k
			b.clock.Advance(players.OTPResendGap)
		}
		b.clock.Advance(time.Hour)
	}
}

func TestFailureRunLocksPhoneForADay(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	b.failChecks(t, players.OTPMaxFailureRun-1)
	code := b.requestCode(t, phone)
	b.failLogins(t, code, 1) // the 100th failed check in a row

	_, err := b.login(code)
	require.ErrorIs(t, err, players.ErrOTPRateLimited, "the right code is refused while the phone is locked")
	require.Equal(t, players.OTPLockout, retryAfter(t, err))

	b.clock.Advance(players.OTPResendGap)
	_, err = b.svc.RequestOTP(ctx, b.caller, phone)
	require.ErrorIs(t, err, players.ErrOTPRateLimited, "no code is sent to a locked phone")
	require.Equal(t, players.OTPLockout-players.OTPResendGap, retryAfter(t, err))

	b.requestCode(t, phoneN(1)) // another phone is not locked
	other := b.caller
	other.GameID = uuid.New()
	_, err = b.svc.RequestOTP(ctx, other, phone)
	require.NoError(t, err, "the lock is of this game's phone")
	sent := b.sms.count(phone)

	b.clock.Advance(players.OTPLockout - players.OTPResendGap - time.Second)
	_, err = b.svc.RequestOTP(ctx, b.caller, phone)
	require.ErrorIs(t, err, players.ErrOTPRateLimited)
	require.Equal(t, time.Second, retryAfter(t, err))
	require.Equal(t, sent, b.sms.count(phone))

	b.clock.Advance(time.Second)
	_, err = b.login(b.requestCode(t, phone))
	require.NoError(t, err, "the lock ends after 24 h")
}

func TestFailureRunEndsWithSuccessAndLock(t *testing.T) {
	t.Parallel()
	b := setup(t)
	run := players.OTPMaxFailureRun*3/5 + 1
	b.failChecks(t, run)
	_, err := b.login(b.requestCode(t, phone))
	require.NoError(t, err)
	b.clock.Advance(players.OTPResendGap)
	b.failChecks(t, run)
	_, err = b.login(b.requestCode(t, phone))
	require.NoError(t, err, "a successful login starts a new run")
	b.clock.Advance(players.OTPResendGap)

	// The run that ends in a lock does not carry over past it.
	b.failChecks(t, players.OTPMaxFailureRun)
	b.clock.Advance(players.OTPLockout)
	b.failChecks(t, players.OTPMaxFailureRun-1)
	_, err = b.login(b.requestCode(t, phone))
	require.NoError(t, err)
}

func TestUploadPictureDeletesThePreviousOne(t *testing.T) {
	t.Parallel()
	files := playersfake.NewFiles()
	b := setup(t, func(c *players.Config) { c.Files = files })
	ctx := context.Background()
	created, err := b.svc.CreateWithUUID(ctx, b.caller, "hero-1")
	require.NoError(t, err)
	png := append([]byte("\x89PNG\r\n\x1a\n"), 1, 2, 3)

	first, cleanupErr, err := b.svc.UploadPicture(ctx, created.Player, png)
	require.NoError(t, err)
	require.NoError(t, cleanupErr)
	second, cleanupErr, err := b.svc.UploadPicture(ctx, first, png)
	require.NoError(t, err)
	require.NoError(t, cleanupErr)
	require.NotEqual(t, first.PictureKey, second.PictureKey)

	_, _, err = b.svc.OpenFile(ctx, first.PictureKey)
	require.ErrorIs(t, err, players.ErrFileNotFound, "the previous picture is deleted")
	rc, _, err := b.svc.OpenFile(ctx, second.PictureKey)
	require.NoError(t, err)
	require.NoError(t, rc.Close())
	require.Equal(t, []string{second.PictureKey}, files.Keys())
}

// undeletable is file storage whose deletes fail.
type undeletable struct{ *playersfake.Files }

func (undeletable) Delete(context.Context, string) error { return errors.New("disk says no") }

func TestUploadPictureSurvivesAFailedDelete(t *testing.T) {
	t.Parallel()
	files := undeletable{playersfake.NewFiles()}
	b := setup(t, func(c *players.Config) { c.Files = files })
	ctx := context.Background()
	created, err := b.svc.CreateWithUUID(ctx, b.caller, "hero-1")
	require.NoError(t, err)
	png := append([]byte("\x89PNG\r\n\x1a\n"), 1, 2, 3)
	first, _, err := b.svc.UploadPicture(ctx, created.Player, png)
	require.NoError(t, err)

	second, cleanupErr, err := b.svc.UploadPicture(ctx, first, png)
	require.NoError(t, err, "the upload stands")
	require.ErrorContains(t, cleanupErr, "disk says no", "the failed delete is reported, for the log")
	require.ErrorContains(t, cleanupErr, first.PictureKey)
	got, err := b.svc.Authenticate(ctx, b.caller, mustToken(t, b, "hero-1"), "")
	require.NoError(t, err)
	require.Equal(t, second.PictureKey, got.PictureKey)
}

func mustToken(t *testing.T, b *bundle, uuid string) string {
	t.Helper()
	tok, err := b.svc.FederatedLogin(context.Background(), b.caller, uuid)
	require.NoError(t, err)
	return tok.AccessToken
}
