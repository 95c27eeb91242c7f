package postgres_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/postgres"
	"github.com/rewardsco/rewards/adapters/postgres/pgtest"
	"github.com/rewardsco/rewards/core/players"
	"github.com/rewardsco/rewards/core/store"
	"github.com/rewardsco/rewards/core/studio"
)

// pausedStore is the players storage with a pause after each count of a game's OTP sends, so
// that racing requests for different phones all count before any records its code, unless the
// game's lock keeps them apart.
type pausedStore struct {
	store.Of[players.Repo]
	counted func()
}

func (p pausedStore) Repo() players.Repo { return pausedRepo{p.Of.Repo(), p.counted} }

func (p pausedStore) WithTx(t store.Tx) players.Repo { return pausedRepo{p.Of.WithTx(t), p.counted} }

func (p pausedStore) InTx(ctx context.Context, fn func(players.Repo) error) error {
	return p.Of.InTx(ctx, func(r players.Repo) error { return fn(pausedRepo{r, p.counted}) })
}

type pausedRepo struct {
	players.Repo
	counted func()
}

func (r pausedRepo) OTPScopeSendStats(ctx context.Context, s players.Scope, since time.Time) (players.SendStats, error) {
	stats, err := r.Repo.OTPScopeSendStats(ctx, s, since)
	r.counted()
	return stats, err
}

type nullSender struct{}

func (nullSender) SendOTP(context.Context, string, string) error { return nil }

// The per-phone lock does not cover other phones: the game-wide cap holds only because the
// count and the new code share a lock of the whole game and environment.
func TestOTPGameCapHoldsAcrossRacingPhones(t *testing.T) {
	t.Parallel()
	const limit, racers = 2, 6
	ctx := context.Background()
	pool := pgtest.Pool(t)
	database := postgres.NewDB(pool)
	games := postgres.NewStudioStore(database)
	studios := studio.NewService(games, newAuditLog(database))
	s, err := studios.CreateStudio(ctx, "Pumped")
	require.NoError(t, err)
	g, err := studios.CreateGame(ctx, studio.Game{StudioID: s.ID, Name: "Pumped Game"})
	require.NoError(t, err)

	var counts atomic.Int32
	// Each count waits for every racer to have counted, or for a while when the others are kept
	// out (then they are waiting for the game's lock).
	counted := func() {
		counts.Add(1)
		for deadline := time.Now().Add(150 * time.Millisecond); counts.Load() < racers && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
		}
	}
	svc := players.NewService(database, pausedStore{postgres.NewPlayersStore(database), counted}, games, players.Config{
		OTPKey: []byte("otp-key"), Sender: nullSender{}, OTPSendsPerHour: limit,
	})
	caller := studio.Caller{GameID: g.ID, StudioID: s.ID, Environment: studio.Test}

	errs := make([]error, racers)
	var wg sync.WaitGroup
	for i := range racers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = svc.RequestOTP(ctx, caller, fmt.Sprintf("+1415555%04d", i))
		}()
	}
	wg.Wait()
	sent := 0
	for _, err := range errs {
		if err == nil {
			sent++
			continue
		}
		require.ErrorIs(t, err, players.ErrOTPGameRateLimited)
	}
	require.Equal(t, limit, sent)
	var stored int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM otp_codes WHERE game_id = $1`, g.ID).Scan(&stored))
	require.Equal(t, limit, stored)
}
