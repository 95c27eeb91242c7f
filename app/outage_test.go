package app_test

import (
	"context"
	"log/slog"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/httpapi"
	"github.com/rewardsco/rewards/adapters/jobs"
	"github.com/rewardsco/rewards/adapters/postgres"
	"github.com/rewardsco/rewards/adapters/postgres/localpg"
	"github.com/rewardsco/rewards/adapters/postgres/pgtest"
	"github.com/rewardsco/rewards/app"
)

// When PostgreSQL goes away, requests get 503 SERVICE_UNAVAILABLE with Retry-After at once
// (never a hang, never a 500), and the service recovers by itself when it is back.
func TestDatabaseOutageIs503AndRecovers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// As root the server runs as another user, which must reach its data directory.
	dir, err := os.MkdirTemp("", "rewards-outage-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	require.NoError(t, os.Chmod(dir, 0o755))
	port := freeTCPPort(t)
	pg, err := localpg.Start(ctx, localpg.Options{DataDir: filepath.Join(dir, "pg"), Port: port})
	require.NoError(t, err)
	t.Cleanup(func() { pg.Stop() })

	cfg, err := pgxpool.ParseConfig(pg.URL + "&connect_timeout=2")
	require.NoError(t, err)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	require.NoError(t, postgres.Migrate(ctx, pool, slog.New(slog.DiscardHandler), jobs.Migrate))
	mods, err := app.NewModules(postgres.NewDB(pool), jobs.New(pool, jobs.Options{}), app.External{
		SecretKey: "test-secret-key-test-secret-key-0123456789", PlayerTokenTTL: time.Hour})
	require.NoError(t, err)
	srv := httptest.NewServer(app.NewServer(mods, app.ServerConfig{Log: slog.New(slog.DiscardHandler), Currency: "INR",
		Hosts: httpapi.Hosts{Dev: []string{"localhost", "127.0.0.1"}}, AdminToken: adminToken,
		Ready: func(ctx context.Context) error { return pool.Ping(ctx) }}).Handler())
	t.Cleanup(srv.Close)
	a := &testAPI{t: t, srv: srv}

	st := a.admin("POST", "/admin/v1/studios", `{"name":"Outage Studio"}`)
	require.Equal(t, 201, st.Status, string(st.Raw))
	g := a.admin("POST", "/admin/v1/studios/"+st.Body["id"].(string)+"/games", `{"name":"Outage Game"}`)
	require.Equal(t, 201, g.Status, string(g.Raw))
	key := map[string]string{"x-api-key": g.Body["apiKeys"].(map[string]any)["test"].(string)}
	require.Equal(t, 200, a.do("GET", "/coins", "localhost", key, "").Status)

	pg.Stop()
	start := time.Now()
	r := a.do("GET", "/coins", "localhost", key, "")
	requireError(t, r, 503, "SERVICE_UNAVAILABLE")
	require.NotEmpty(t, r.Header.Get("Retry-After"))
	require.Less(t, time.Since(start), 10*time.Second, "an outage is answered, not waited out")
	requireError(t, a.admin("POST", "/admin/v1/studios", `{"name":"During the outage"}`), 503, "SERVICE_UNAVAILABLE")

	pg, err = localpg.Start(ctx, localpg.Options{DataDir: filepath.Join(dir, "pg"), Port: port})
	require.NoError(t, err)
	require.Eventually(t, func() bool { return a.do("GET", "/coins", "localhost", key, "").Status == 200 },
		20*time.Second, 200*time.Millisecond, "the service recovers by itself")
	list := a.admin("GET", "/admin/v1/studios", "")
	require.Equal(t, 200, list.Status)
	require.NotContains(t, string(list.Raw), "During the outage", "nothing happened during the outage")
}

func freeTCPPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// TestRequestStatementsAreBounded shows the request pool's bounds at work: a statement running
// past 5 s is cancelled (57014) and one waiting past 2 s for a lock gives up (55P03), so a stalled
// database or a held lock never hangs a request nor holds a connection of the pool the job
// queue shares.
func TestRequestStatementsAreBounded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d, err := app.OpenDatabase(ctx, app.Config{Mode: app.Development, DatabaseURL: pgtest.URL(t)}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(d.Close)

	_, err = d.Pool.Exec(ctx, "SELECT pg_sleep(30)")
	var pgErr *pgconn.PgError
	require.ErrorAs(t, err, &pgErr)
	require.Equal(t, "57014", pgErr.Code, "statement_timeout cancels it: %v", err)

	_, err = d.Pool.Exec(ctx, "CREATE TABLE bound_probe (id int PRIMARY KEY); INSERT INTO bound_probe VALUES (1)")
	require.NoError(t, err)
	holder, err := d.Pool.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = holder.Rollback(ctx) }()
	_, err = holder.Exec(ctx, "UPDATE bound_probe SET id = 1 WHERE id = 1")
	require.NoError(t, err)
	_, err = d.Pool.Exec(ctx, "UPDATE bound_probe SET id = 1 WHERE id = 1")
	require.ErrorAs(t, err, &pgErr)
	require.Equal(t, "55P03", pgErr.Code, "lock_timeout gives up: %v", err)
}
