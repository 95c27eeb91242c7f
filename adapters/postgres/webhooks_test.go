package postgres_test

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/postgres"
	"github.com/rewardsco/rewards/adapters/postgres/pgtest"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/webhooks"
)

// anyURL is a webhooks.Transport that takes every URL; these tests send nothing.
type anyURL struct{}

func (anyURL) CheckURL(string) error { return nil }

func (anyURL) Send(context.Context, webhooks.Request) (int, error) { return 200, nil }

// TestConfigureCapHoldsUnderConcurrency: with nine configurations in place, 30 configures of
// new URLs racing for the last place (on as many connections) create exactly one; the rest are
// refused with ErrConfigLimit.
func TestConfigureCapHoldsUnderConcurrency(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(pgtest.URL(t))
	require.NoError(t, err)
	cfg.MaxConns = 32
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	database := postgres.NewDB(pool)
	s, err := studio.NewService(postgres.NewStudioStore(database), newAuditLog(database)).CreateStudio(ctx, "Pixel Forge")
	require.NoError(t, err)
	svc, err := webhooks.NewService(postgres.NewWebhooksStore(database, nil), webhooks.Options{SecretKey: make([]byte, 32), Transport: anyURL{}, Audit: newAuditLog(database)})
	require.NoError(t, err)
	sc := webhooks.Scope{StudioID: s.ID, Environment: studio.Test}
	configure := func(url string) (bool, error) {
		events := []string{"COINS_CREDITED"}
		_, isNew, err := svc.Configure(ctx, sc, webhooks.Change{URL: &url, SubscribedEvents: &events})
		return isNew, err
	}
	for i := range 9 {
		isNew, err := configure("https://hooks.example.com/first-" + strconv.Itoa(i))
		require.NoError(t, err)
		require.True(t, isNew)
	}

	const tries = 30
	// Every racer gets a connection at once: none is held back by connecting.
	conns := make([]*pgxpool.Conn, tries)
	for i := range conns {
		conns[i], err = pool.Acquire(ctx)
		require.NoError(t, err)
	}
	for _, c := range conns {
		c.Release()
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	start := make(chan struct{})
	created, limited := 0, 0
	for i := range tries {
		wg.Go(func() {
			url := "https://hooks.example.com/" + strconv.Itoa(i)
			<-start
			isNew, err := configure(url)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil && isNew:
				created++
			case errors.Is(err, webhooks.ErrConfigLimit):
				limited++
			default:
				t.Errorf("configure %s: created=%v err=%v", url, isNew, err)
			}
		})
	}
	close(start)
	wg.Wait()
	require.Equal(t, 1, created, "one place was left")
	require.Equal(t, tries-1, limited)
	var stored int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM webhook_configs WHERE studio_id = $1 AND environment = 'test'`, s.ID).Scan(&stored))
	require.Equal(t, 10, stored)

	// The other environment has ten of its own.
	url, events := "https://hooks.example.com/live", []string{"COINS_CREDITED"}
	_, isNew, err := svc.Configure(ctx, webhooks.Scope{StudioID: s.ID, Environment: studio.Live}, webhooks.Change{URL: &url, SubscribedEvents: &events})
	require.NoError(t, err)
	require.True(t, isNew)
}

// TestWebhookRoutesNeverExcludeAnEventWithoutReason: the order and partner wallet events have
// no reason (null in webhook_routes, empty in webhooks.Event); a configuration that excludes
// reasons still takes them, in SQL as in Go.
func TestWebhookRoutesNeverExcludeAnEventWithoutReason(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := openContractDB(t)
	g, err := postgres.NewStudioStore(c.db).Repo().GetGame(ctx, c.newGame(t))
	require.NoError(t, err)
	cfg, created, err := postgres.NewWebhooksStore(c.db, nil).Repo().InsertConfig(ctx, webhooks.Config{StudioID: g.StudioID,
		Environment: studio.Test, URL: "https://hooks.example.com/orders", SubscribedEvents: []string{"ORDER_SUCCEEDED"},
		ExcludedReasons: []string{"PROMO"}, IsActive: true, Sealed: []byte("sealed"), SecretLast4: "abcd"})
	require.NoError(t, err)
	require.True(t, created)
	routes := func(reason *string) []uuid.UUID {
		rows, err := c.db.Pool().Query(ctx, `SELECT config_id FROM webhook_routes($1, 'test', 'ORDER_SUCCEEDED', $2)`, g.ID, reason)
		require.NoError(t, err)
		ids, err := pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
		require.NoError(t, err)
		return ids
	}
	promo := "PROMO"
	require.Equal(t, []uuid.UUID{cfg.ID}, routes(nil))
	require.Empty(t, routes(&promo))
	require.True(t, cfg.Receives(webhooks.Event{StudioID: g.StudioID, Environment: studio.Test, Type: "ORDER_SUCCEEDED"}))
	require.False(t, cfg.Receives(webhooks.Event{StudioID: g.StudioID, Environment: studio.Test, Type: "ORDER_SUCCEEDED", Reason: promo}))
}
