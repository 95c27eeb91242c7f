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

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/jobs"
	"github.com/rewardsco/rewards/adapters/postgres"
	"github.com/rewardsco/rewards/adapters/postgres/pgtest"
	"github.com/rewardsco/rewards/adapters/webhookhttp"
	"github.com/rewardsco/rewards/core/audit"
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
	outbox   *postgres.WebhookOutbox
	queue    *jobs.Queue
	studios  *studio.Service
	coins    *coins.Service
	players  *players.Service
	webhooks *webhooks.Service
}

func setupDeliveries(t *testing.T, workers int) deliveryBundle {
	t.Helper()
	return setupDeliveriesOn(t, pgtest.URL(t), workers, nil)
}

// setupDeliveriesOn is setupDeliveries on the database at url (one another bundle may share:
// another instance), with retry delays (nil: the service's).
func setupDeliveriesOn(t *testing.T, url string, workers int, retryDelays []time.Duration) deliveryBundle {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(url)
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
		Transport:   webhookhttp.New(webhookhttp.Options{AllowHTTP: true, AllowPrivate: true}),
		RetryDelays: retryDelays,
		Audit:       audit.New(database, postgres.NewAuditStore(database)),
	})
	require.NoError(t, err)
	jobs.RegisterWebhooks(queue, hooks, postgres.NewWebhookOutbox(database))
	require.NoError(t, queue.Open())
	return deliveryBundle{
		outbox:   postgres.NewWebhookOutbox(database),
		queue:    queue,
		studios:  studio.NewService(games, audit.New(database, postgres.NewAuditStore(database))),
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
	studioID uuid.UUID
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
	return hookedStudio{studioID: s.ID, movement: coins.Movement{GameID: g.ID, Environment: studio.Test, PlayerID: p.Player.ID,
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

// TestClaimedDeliveryIsTakenAgainAfterItsLease: a dispatcher that claims deliveries and dies
// before their attempts holds them for its lease only; meanwhile no other claim returns them,
// and after it the next claim does.
func TestClaimedDeliveryIsTakenAgainAfterItsLease(t *testing.T) {
	t.Parallel()
	b := setupDeliveries(t, 5)
	h := b.hookedStudio(t, "Lease Studio", "http://127.0.0.1:9/hook")
	b.credit(t, h, 3)
	ctx := context.Background()

	dying, err := b.outbox.Claim(ctx, 10, 2*time.Second)
	require.NoError(t, err)
	require.Len(t, dying, 3)
	leased := time.Now()
	again, err := b.outbox.Claim(ctx, 10, time.Minute)
	require.NoError(t, err)
	require.Empty(t, again, "a leased delivery is not claimed twice")

	var retaken []webhooks.Pending
	require.Eventually(t, func() bool {
		got, err := b.outbox.Claim(ctx, 10, time.Minute)
		require.NoError(t, err)
		retaken = append(retaken, got...)
		return len(retaken) == 3
	}, 10*time.Second, 100*time.Millisecond)
	require.GreaterOrEqual(t, time.Since(leased), 1500*time.Millisecond, "taken again only once the lease ended")
	ids := func(ps []webhooks.Pending) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p.DeliveryID.String())
			require.Zero(t, p.AttemptNumber, "no attempt was recorded")
		}
		return out
	}
	require.ElementsMatch(t, ids(dying), ids(retaken))
}

// TestConcurrentClaimsTakeEachDeliveryOnce: dispatchers claiming at the same moment get
// disjoint deliveries, and together all of them.
func TestConcurrentClaimsTakeEachDeliveryOnce(t *testing.T) {
	t.Parallel()
	b := setupDeliveries(t, 5)
	h := b.hookedStudio(t, "Claims Studio", "http://127.0.0.1:9/hook")
	const n = 200
	b.credit(t, h, n)
	var mu sync.Mutex
	seen := map[string]int{}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				got, err := b.outbox.Claim(context.Background(), 7, time.Minute)
				if !assert.NoError(t, err) || len(got) == 0 {
					return
				}
				mu.Lock()
				for _, p := range got {
					seen[p.DeliveryID.String()]++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	require.Len(t, seen, n)
	for id, c := range seen {
		require.Equal(t, 1, c, "delivery %s claimed %d times", id, c)
	}
}

// TestTwoInstancesSendEachDeliveryOnce: two instances' dispatchers on one database, 300
// events to a receiver that takes a while to answer: every event arrives, none twice, and no
// event's attempt is ever in flight twice at once.
func TestTwoInstancesSendEachDeliveryOnce(t *testing.T) {
	t.Parallel()
	url := pgtest.URL(t)
	a, other := setupDeliveriesOn(t, url, 20, nil), setupDeliveriesOn(t, url, 20, nil)
	var mu sync.Mutex
	got, inFlight := map[string]int{}, map[string]bool{}
	twiceAtOnce := 0
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Service-Event-Id")
		mu.Lock()
		if inFlight[id] {
			twiceAtOnce++
		}
		inFlight[id] = true
		got[id]++
		mu.Unlock()
		time.Sleep(5 * time.Millisecond)
		mu.Lock()
		delete(inFlight, id)
		mu.Unlock()
	}))
	t.Cleanup(rcv.Close)
	const n = 300
	h := a.hookedStudio(t, "Twin Studio", rcv.URL+"/hook")
	a.credit(t, h, n)
	a.start(t)
	other.start(t)
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(got) == n
	}, 30*time.Second, 50*time.Millisecond)
	time.Sleep(300 * time.Millisecond) // a duplicate would arrive about now
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, got, n)
	for id, c := range got {
		require.Equal(t, 1, c, "event %s sent %d times", id, c)
	}
	require.Zero(t, twiceAtOnce)
}

// TestRetriesFollowTheSchedule: a receiver that fails twice gets the third attempt; each retry
// comes after its delay (here 1 s, then 2 s), not before and not much later.
func TestRetriesFollowTheSchedule(t *testing.T) {
	t.Parallel()
	b := setupDeliveriesOn(t, pgtest.URL(t), 5, []time.Duration{time.Second, 2 * time.Second, time.Hour, time.Hour})
	var mu sync.Mutex
	var at []time.Time
	var attempts []string
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		at = append(at, time.Now())
		attempts = append(attempts, r.Header.Get("X-Service-Attempt"))
		if len(at) <= 2 {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	t.Cleanup(rcv.Close)
	h := b.hookedStudio(t, "Retry Studio", rcv.URL+"/hook")
	b.credit(t, h, 1)
	b.start(t)
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(at) == 3
	}, 15*time.Second, 50*time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, []string{"1", "2", "3"}, attempts)
	for i, want := range []time.Duration{time.Second, 2 * time.Second} {
		gap := at[i+1].Sub(at[i])
		require.GreaterOrEqual(t, gap, want-50*time.Millisecond, "retry %d came early", i+1)
		require.Less(t, gap, want+time.Second, "retry %d came late", i+1)
	}
	// The receiver has answered; the dispatcher records the attempt just after (group commit).
	var last webhooks.Delivery
	require.Eventually(t, func() bool {
		list, _, err := b.webhooks.Deliveries(context.Background(), webhooks.Scope{StudioID: h.studioID, Environment: studio.Test}, webhooks.DeliveryFilter{Limit: 10})
		if err != nil || len(list) != 1 {
			return false
		}
		last = list[0]
		return last.Status == webhooks.StatusSuccess
	}, 5*time.Second, 20*time.Millisecond, "the third attempt is recorded as a success")
	require.Equal(t, 3, last.AttemptNumber)
}

// TestInternalFailuresDeadLetterADelivery: an attempt that fails on our side puts the delivery
// off (it is not claimed again at once), and the MaxInternalFailures-th dead-letters it, as River
// did after its attempts; a finished delivery is left as it is.
func TestInternalFailuresDeadLetterADelivery(t *testing.T) {
	t.Parallel()
	b := setupDeliveries(t, 5)
	h := b.hookedStudio(t, "Internal Studio", "http://127.0.0.1:9/hook")
	b.credit(t, h, 1)
	ctx := context.Background()
	claimed, err := b.outbox.Claim(ctx, 10, time.Minute)
	require.NoError(t, err)
	require.Len(t, claimed, 1)
	id := claimed[0].DeliveryID
	status := func() webhooks.Delivery {
		list, _, err := b.webhooks.Deliveries(ctx, webhooks.Scope{StudioID: h.studioID, Environment: studio.Test}, webhooks.DeliveryFilter{Limit: 10})
		require.NoError(t, err)
		require.Len(t, list, 1)
		return list[0]
	}
	for i := 1; i < jobs.MaxInternalFailures; i++ {
		dead, err := b.outbox.InternalFailure(ctx, id, jobs.MaxInternalFailures, "internal error: delivery abandoned")
		require.NoError(t, err)
		require.False(t, dead, "failure %d", i)
	}
	require.Equal(t, webhooks.StatusPending, status().Status)
	again, err := b.outbox.Claim(ctx, 10, time.Minute)
	require.NoError(t, err)
	require.Empty(t, again, "a delivery put off for our failures is not due at once")

	dead, err := b.outbox.InternalFailure(ctx, id, jobs.MaxInternalFailures, "internal error: delivery abandoned")
	require.NoError(t, err)
	require.True(t, dead)
	d := status()
	require.Equal(t, webhooks.StatusFailed, d.Status)
	require.NotNil(t, d.ErrorMessage)
	require.Equal(t, "internal error: delivery abandoned", *d.ErrorMessage)
	dead, err = b.outbox.InternalFailure(ctx, id, jobs.MaxInternalFailures, "x")
	require.NoError(t, err)
	require.False(t, dead, "a finished delivery is left as it is")
}
