package jobs_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/jobs"
	"github.com/rewardsco/rewards/adapters/postgres"
	"github.com/rewardsco/rewards/adapters/postgres/pgtest"
	"github.com/rewardsco/rewards/adapters/webhookhttp"
	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/idempotency"
	"github.com/rewardsco/rewards/core/players"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/webhooks"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// deliveryBundle is the service's delivery path on a fresh database: coin movements that fan
// out to webhook deliveries, and the River queue that works them, not yet started.
type deliveryBundle struct {
	queue    *jobs.Queue
	studios  *studio.Service
	coins    *coins.Service
	players  *players.Service
	webhooks *webhooks.Service
}

func setupDeliveries(t *testing.T, workers int) deliveryBundle {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(pgtest.URL(t))
	require.NoError(t, err)
	cfg.MaxConns = 20 // the service's own pool size
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	database := postgres.NewDB(pool)
	queue := jobs.New(pool, jobs.Options{Workers: map[string]int{jobs.QueueWebhooks: workers}, Logger: slog.New(slog.DiscardHandler)})
	games := postgres.NewStudioStore(database)
	hooks, err := webhooks.NewService(postgres.NewWebhooksStore(database, queue), webhooks.Options{
		SecretKey: make([]byte, 32),
		// Loopback test receivers: the development switches.
		Transport: webhookhttp.New(webhookhttp.Options{AllowHTTP: true, AllowPrivate: true}),
	})
	require.NoError(t, err)
	jobs.RegisterWebhooks(queue, hooks)
	require.NoError(t, queue.Open())
	return deliveryBundle{
		queue:    queue,
		studios:  studio.NewService(games),
		coins:    coins.NewService(database, postgres.NewCoinsStore(database, queue), games, idempotency.NewKeeper(database, postgres.NewIdempotencyStore(database))),
		players:  players.NewService(database, postgres.NewPlayersStore(database), games, players.Config{}),
		webhooks: hooks,
	}
}

// start works the queue until the test ends; then running attempts are cancelled.
func (b deliveryBundle) start(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	require.NoError(t, b.queue.Start(ctx))
	t.Cleanup(func() {
		cancel() // a hard stop: attempts in flight are cancelled
		stopCtx, done := context.WithTimeout(context.Background(), 10*time.Second)
		defer done()
		_ = b.queue.Stop(stopCtx)
	})
}

// hookedStudio is a studio with a game, a coin, a player and a webhook configuration of url.
type hookedStudio struct {
	movement coins.Movement
}

func (b deliveryBundle) hookedStudio(t *testing.T, name, url string) hookedStudio {
	t.Helper()
	ctx := context.Background()
	s, err := b.studios.CreateStudio(ctx, name)
	require.NoError(t, err)
	g, err := b.studios.CreateGame(ctx, studio.Game{StudioID: s.ID, Name: name + " Game"})
	require.NoError(t, err)
	c, err := b.coins.CreateCoin(ctx, coins.Coin{GameID: g.ID, Name: "Gems", ImageURL: "https://cdn.example.com/gem.png"})
	require.NoError(t, err)
	caller := studio.Caller{GameID: g.ID, StudioID: s.ID, Environment: studio.Test}
	p, err := b.players.CreateWithUUID(ctx, caller, name+"-player")
	require.NoError(t, err)
	events := []string{"COINS_CREDITED"}
	_, _, err = b.webhooks.Configure(ctx, webhooks.Scope{StudioID: s.ID, Environment: studio.Test}, webhooks.Change{URL: &url, SubscribedEvents: &events})
	require.NoError(t, err)
	return hookedStudio{movement: coins.Movement{GameID: g.ID, Environment: studio.Test, PlayerID: p.Player.ID,
		UserUUID: p.Player.StudioRef(), CoinID: c.ID, Amount: 1}}
}

// credit makes n coin credits, each queuing one delivery.
func (b deliveryBundle) credit(t *testing.T, h hookedStudio, n int) {
	t.Helper()
	for range n {
		_, _, err := b.coins.Distribute(context.Background(), h.movement)
		require.NoError(t, err)
	}
}

// TestStalledReceiverDelaysOnlyItsOwnDeliveries: 500 deliveries queued for a receiver that
// never answers, then one for another studio's receiver. The stalled configuration holds at
// most webhooks.MaxInFlight attempts at once, and the other studio's event arrives within 5 s
// of the queue starting, not after the stalled attempts' 30 s.
func TestStalledReceiverDelaysOnlyItsOwnDeliveries(t *testing.T) {
	t.Parallel()
	b := setupDeliveries(t, 50) // REWARDS_WEBHOOK_WORKERS' default

	var inFlight, maxInFlight atomic.Int64
	release := make(chan struct{})
	stalled := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for m := maxInFlight.Load(); n > m && !maxInFlight.CompareAndSwap(m, n); m = maxInFlight.Load() {
		}
		select { // never answers
		case <-r.Context().Done():
		case <-release:
		}
	}))
	arrived := make(chan string, 10)
	answering := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			AppID string `json:"app_id"`
		}
		_ = json.NewDecoder(r.Body).Decode(&body)
		arrived <- body.AppID
	}))
	var closeOnce sync.Once
	t.Cleanup(func() { // after the queue's hard stop (cleanups run last first)
		closeOnce.Do(func() { close(release) })
		stalled.Close()
		answering.Close()
	})

	a := b.hookedStudio(t, "Stalled Studio", stalled.URL+"/hook")
	other := b.hookedStudio(t, "Other Studio", answering.URL+"/hook")
	b.credit(t, a, 500)
	b.credit(t, other, 1) // queued behind all 500

	b.start(t)
	started := time.Now()
	select {
	case app := <-arrived:
		require.Equal(t, other.movement.GameID.String(), app)
		t.Logf("the other studio's delivery arrived %v after the queue started", time.Since(started).Round(time.Millisecond))
	case <-time.After(5 * time.Second):
		t.Fatalf("the other studio's delivery did not arrive within 5 s: the stalled receiver holds %d attempts", inFlight.Load())
	}
	require.LessOrEqual(t, maxInFlight.Load(), int64(webhooks.MaxInFlight), "attempts in flight to the stalled receiver")
	require.Positive(t, maxInFlight.Load(), "the stalled receiver was tried")
}
