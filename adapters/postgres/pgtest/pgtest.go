// Package pgtest gives tests a fresh, migrated PostgreSQL database each, on a private server
// started from the machine's PostgreSQL binaries (see adapters/postgres/localpg), or on the server named by
// REWARDS_TEST_DATABASE_URL. A package that uses it calls Main from its TestMain so the server
// stops when the tests end.
package pgtest

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/rewardsco/rewards/adapters/jobs"
	"github.com/rewardsco/rewards/adapters/postgres"
	"github.com/rewardsco/rewards/adapters/postgres/localpg"
)

const template = "rewards_template"

var (
	once      sync.Once
	setupErr  error
	server    *localpg.Server
	adminURL  string // a URL of the server with the database part replaceable
	tmpDir    string
	createMu  sync.Mutex
	dbCounter atomic.Int64
)

// Main runs the tests of a package and stops the private server afterwards.
func Main(m *testing.M) int {
	code := m.Run()
	if server != nil {
		server.Stop()
	}
	if tmpDir != "" {
		_ = os.RemoveAll(tmpDir)
	}
	return code
}

func setup() {
	ctx := context.Background()
	url := os.Getenv("REWARDS_TEST_DATABASE_URL")
	if url == "" {
		var err error
		if tmpDir, err = os.MkdirTemp("", "rewards-pgtest-"); err != nil {
			setupErr = err
			return
		}
		// The server may run as another user (we may be root): it must reach its data dir.
		if err := os.Chmod(tmpDir, 0o755); err != nil {
			setupErr = err
			return
		}
		server, err = localpg.Start(ctx, localpg.Options{DataDir: tmpDir + "/data"})
		if err != nil {
			setupErr = err
			return
		}
		url = server.URL
	}
	adminURL = url
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		setupErr = err
		return
	}
	defer conn.Close(ctx)
	_, _ = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+template)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+template); err != nil {
		setupErr = fmt.Errorf("create template database: %w", err)
		return
	}
	pool, err := pgxpool.New(ctx, withDatabase(url, template))
	if err != nil {
		setupErr = err
		return
	}
	defer pool.Close()
	setupErr = postgres.Migrate(ctx, pool, slog.New(slog.DiscardHandler), jobs.Migrate)
}

// withDatabase returns url pointing at database name.
func withDatabase(url, name string) string {
	before, after, _ := strings.Cut(url, "?")
	i := strings.LastIndex(before, "/")
	out := before[:i+1] + name
	if after != "" {
		out += "?" + after
	}
	return out
}

// URL returns the URL of a fresh, migrated database for t, dropped when t ends.
func URL(t testing.TB) string {
	t.Helper()
	return newDatabase(t, template)
}

// EmptyURL returns the URL of a fresh database with no tables at all, dropped when t ends.
func EmptyURL(t testing.TB) string {
	t.Helper()
	return newDatabase(t, "template0")
}

func newDatabase(t testing.TB, from string) string {
	t.Helper()
	once.Do(setup)
	if setupErr != nil {
		t.Fatalf("pgtest: %v", setupErr)
	}
	ctx := context.Background()
	name := fmt.Sprintf("t_%d_%d", os.Getpid(), dbCounter.Add(1))
	conn, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		t.Fatalf("pgtest: connect: %v", err)
	}
	defer conn.Close(ctx)
	createMu.Lock()
	_, err = conn.Exec(ctx, "CREATE DATABASE "+name+" TEMPLATE "+from)
	createMu.Unlock()
	if err != nil {
		t.Fatalf("pgtest: create database: %v", err)
	}
	t.Cleanup(func() {
		conn, err := pgx.Connect(ctx, adminURL)
		if err != nil {
			return
		}
		defer conn.Close(ctx)
		_, _ = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	})
	return withDatabase(adminURL, name)
}

// Pool returns a pool on a fresh, migrated database for t, closed when t ends.
func Pool(t testing.TB) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(URL(t))
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	// As the service's pool (app.Database).
	postgres.ConfigurePool(cfg)
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(pool.Close)
	return pool
}
