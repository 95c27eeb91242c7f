package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/rewardsco/rewards/adapters/postgres/localpg"
	"github.com/rewardsco/rewards/app"
)

// environment is everything the scenarios run against: the service, its game, coin and players,
// and the PostgreSQL server under both. Fixtures are made the first time a scenario needs them.
type environment struct {
	opts    options
	tmp     string
	pg      *localpg.Server // nil with -database-url
	dbURL   string          // the service's database
	baseURL string          // http://127.0.0.1:port
	client  *http.Client

	adminToken string
	testKey    string
	coinID     string
	tokens     []string // one player token per client, created on demand

	pgbenchURL  string // pgbench's database, initialised on demand
	dropPgbench func()

	stopService func()
	// serviceVars are the service's configuration (its environment, the HTTP address aside), for
	// the service alone (measureService) to run as the in-process one does.
	serviceVars map[string]string

	// The webhooks-burst scenario pauses River's webhook queue through a client of its own.
	river          *river.Client[pgx.Tx]
	riverPool      *pgxpool.Pool
	webhooksPaused bool
}

// start brings up PostgreSQL (private unless -database-url) and the service, and sets up a
// studio, game and coin through the operator API, exactly as an operator would.
func start(ctx context.Context, opts options) (_ *environment, err error) {
	env := &environment{opts: opts, stopService: func() {}, dropPgbench: func() {}}
	defer func() {
		if err != nil {
			env.close()
		}
	}()
	if env.tmp, err = os.MkdirTemp("", "rewards-load-"); err != nil {
		return nil, err
	}
	// As root, PostgreSQL runs as another user, which must be able to reach its data directory.
	if err = os.Chmod(env.tmp, 0o755); err != nil {
		return nil, err
	}
	env.dbURL = opts.databaseURL
	if env.dbURL == "" {
		fmt.Fprintln(os.Stderr, "starting a private PostgreSQL…")
		if env.pg, err = localpg.Start(ctx, localpg.Options{DataDir: filepath.Join(env.tmp, "pg")}); err != nil {
			return nil, err
		}
		env.dbURL = env.pg.URL
	}
	if err = env.startService(ctx); err != nil {
		return nil, err
	}
	return env, env.setupGame(ctx)
}

func (env *environment) startService(ctx context.Context) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	dbURL := env.dbURL
	if env.opts.poolMax > 0 {
		if dbURL, err = withParam(dbURL, "pool_max_conns", strconv.Itoa(env.opts.poolMax)); err != nil {
			return err
		}
	}
	env.adminToken = "rat_load_" + rand.Text()
	vars := map[string]string{
		"DATABASE_URL":             dbURL,
		"REWARDS_HTTP_ADDR":        fmt.Sprintf("127.0.0.1:%d", port),
		"REWARDS_ADMIN_TOKEN":      env.adminToken,
		"REWARDS_SECRET_KEY":       "load-benchmark-secret-" + rand.Text(),
		"REWARDS_DEMO_SEED":        "false",
		"REWARDS_DATA_DIR":         filepath.Join(env.tmp, "data"),
		"REWARDS_LOG_FORMAT":       "text",
		"REWARDS_SHUTDOWN_TIMEOUT": "5s",
		// Access logs are info-level: at thousands of requests a second, writing them would be
		// what we measure.
		"REWARDS_LOG_LEVEL": "warn",
		// The webhook scenarios deliver to a plain-http receiver on loopback.
		"REWARDS_WEBHOOK_ALLOW_HTTP":    "true",
		"REWARDS_WEBHOOK_ALLOW_PRIVATE": "true",
	}
	if env.opts.webhookWorkers > 0 {
		vars["REWARDS_WEBHOOK_WORKERS"] = strconv.Itoa(env.opts.webhookWorkers)
	}
	env.serviceVars = maps.Clone(vars)
	delete(env.serviceVars, "REWARDS_HTTP_ADDR")
	cfg, err := app.LoadConfig(func(k string) string { return vars[k] })
	if err != nil {
		return err
	}
	log, err := app.NewLogger(os.Stderr, cfg.LogFormat, cfg.LogLevel)
	if err != nil {
		return err
	}
	svcCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan error, 1)
	go func() { done <- app.Serve(svcCtx, cfg, log, io.Discard) }()
	env.stopService = func() {
		cancel()
		if err := <-done; err != nil {
			fmt.Fprintln(os.Stderr, "load: service:", err)
		}
	}

	env.baseURL = fmt.Sprintf("http://127.0.0.1:%d", port)
	maxClients := 1
	for _, c := range env.opts.clients {
		maxClients = max(maxClients, c)
	}
	// One shared client whose idle pool holds a connection per load client: otherwise clients
	// beyond the default 2 idle connections per host would reconnect on every request.
	env.client = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		MaxIdleConns:        maxClients * 2,
		MaxIdleConnsPerHost: maxClients * 2,
		IdleConnTimeout:     time.Minute,
	}}

	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case err := <-done:
			done <- err // stopService reads it again
			return fmt.Errorf("service stopped while starting: %v", err)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if resp, err := env.client.Get(env.baseURL + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return errors.New("service did not answer /healthz within 60s")
		}
	}
}

func (env *environment) setupGame(ctx context.Context) (err error) {
	env.testKey, env.coinID, err = env.newGame(ctx, "Load Benchmark")
	return err
}

// newGame creates a studio of its own with one game and one coin, and returns the game's test
// key and the coin's id.
func (env *environment) newGame(ctx context.Context, name string) (testKey, coinID string, err error) {
	op := map[string]string{"Authorization": "Bearer " + env.adminToken}
	var studio struct{ ID string }
	if err := env.call(ctx, "/admin/v1/studios", op, map[string]any{"name": name + " Studio"}, http.StatusCreated, &studio); err != nil {
		return "", "", err
	}
	var game struct {
		ID      string
		APIKeys struct{ Test string } `json:"apiKeys"`
	}
	if err := env.call(ctx, "/admin/v1/studios/"+studio.ID+"/games", op, map[string]any{"name": name}, http.StatusCreated, &game); err != nil {
		return "", "", err
	}
	var coin struct{ ID string }
	if err := env.call(ctx, "/admin/v1/games/"+game.ID+"/coins", op,
		map[string]any{"name": "Gems", "imageUrl": "https://cdn.example.com/gem.png"}, http.StatusCreated, &coin); err != nil {
		return "", "", err
	}
	return game.APIKeys.Test, coin.ID, nil
}

// newPlayers creates n players of the game of testKey, unfunded, and returns their tokens.
func (env *environment) newPlayers(ctx context.Context, testKey string, n int) ([]string, error) {
	var tokens []string
	for i := range n {
		tok, err := env.newPlayer(ctx, testKey, i)
		if err != nil {
			return nil, err
		}
		tokens = append(tokens, tok)
	}
	return tokens, nil
}

func (env *environment) newPlayer(ctx context.Context, testKey string, i int) (string, error) {
	key := map[string]string{"x-api-key": testKey}
	id := fmt.Sprintf("load-player-%d-%s", i, rand.Text()[:8])
	if err := env.call(ctx, "/player/create-with-uuid", key, map[string]any{"uuid": id}, http.StatusCreated, nil); err != nil {
		return "", err
	}
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := env.call(ctx, "/player/login/federatedByStudio", key, map[string]any{"uuid": id}, http.StatusOK, &tok); err != nil {
		return "", err
	}
	return tok.AccessToken, nil
}

// playerTokens returns n player tokens, creating and funding the players not made yet. Each is
// funded with the largest single credit, so deducting 1 at a time never runs dry in a benchmark.
func (env *environment) playerTokens(ctx context.Context, n int) ([]string, error) {
	for i := len(env.tokens); i < n; i++ {
		tok, err := env.newPlayer(ctx, env.testKey, i)
		if err != nil {
			return nil, err
		}
		h := map[string]string{"x-api-key": env.testKey, "Authorization": "Bearer " + tok}
		if err := env.call(ctx, "/coins/"+env.coinID+"/distribute", h, map[string]any{"amount": 1_000_000_000, "reason": "LOAD_FUNDING"}, http.StatusCreated, nil); err != nil {
			return nil, err
		}
		env.tokens = append(env.tokens, tok)
	}
	return env.tokens[:n], nil
}

// call POSTs body as JSON to path and decodes the answer into out, insisting on status want.
func (env *environment) call(ctx context.Context, path string, headers map[string]string, body any, want int, out any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, env.baseURL+path, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := env.client.Do(req)
	if err != nil {
		return fmt.Errorf("POST %s: %w", path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		return fmt.Errorf("POST %s: %d (want %d): %s", path, resp.StatusCode, want, data)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("POST %s: decode answer: %w", path, err)
		}
	}
	return nil
}

// pgbenchDatabase returns the URL of a database initialised for pgbench (pgbench -i), on the
// same server as the service's, so both compete for the same PostgreSQL and CPUs.
func (env *environment) pgbenchDatabase(ctx context.Context) (string, error) {
	if env.pgbenchURL != "" {
		return env.pgbenchURL, nil
	}
	const name = "rewards_load_pgbench"
	var u string
	var err error
	if env.pg != nil {
		// The whole server is thrown away at the end: nothing to drop.
		u, err = env.pg.CreateDatabase(ctx, name)
	} else {
		u, err = createOwnDatabase(ctx, env.opts.databaseURL, name)
		if err == nil {
			env.dropPgbench = func() { dropDatabase(env.opts.databaseURL, name) }
		}
	}
	if err != nil {
		return "", fmt.Errorf("pgbench database: %w", err)
	}
	fmt.Fprintf(os.Stderr, "initialising pgbench (scale %d)…\n", env.opts.scale)
	if out, err := pgbench(ctx, "-i", "-q", "-s", strconv.Itoa(env.opts.scale), u); err != nil {
		return "", fmt.Errorf("pgbench -i: %w\n%s", err, out)
	}
	env.pgbenchURL = u
	return u, nil
}

func (env *environment) poolDescription() string {
	if env.opts.poolMax > 0 {
		return fmt.Sprintf("pool_max_conns=%d (set by -pool-max-conns)", env.opts.poolMax)
	}
	if u, err := url.Parse(env.dbURL); err == nil && u.Query().Get("pool_max_conns") != "" {
		return "pool_max_conns=" + u.Query().Get("pool_max_conns") + " (from -database-url)"
	}
	return fmt.Sprintf("the service's default (%d connections); pgbench opens one connection per client", app.DefaultPoolSize)
}

func (env *environment) workersDescription() string {
	if env.opts.webhookWorkers > 0 {
		return fmt.Sprintf("REWARDS_WEBHOOK_WORKERS=%d (set by -webhook-workers)", env.opts.webhookWorkers)
	}
	return "the service's default (REWARDS_WEBHOOK_WORKERS=50)"
}

// close stops the service, then PostgreSQL, and removes the temporary directory.
func (env *environment) close() {
	if err := env.resumeWebhooks(); err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
	}
	if env.riverPool != nil {
		env.riverPool.Close()
	}
	env.stopService()
	env.dropPgbench()
	if env.pg != nil {
		env.pg.Stop()
	}
	if env.tmp != "" {
		_ = os.RemoveAll(env.tmp)
	}
}

// createOwnDatabase creates database name on the server of serverURL (dropping a leftover of
// an interrupted run) and returns its URL.
func createOwnDatabase(ctx context.Context, serverURL, name string) (string, error) {
	conn, err := pgx.Connect(ctx, serverURL)
	if err != nil {
		return "", err
	}
	defer conn.Close(ctx)
	ident := pgx.Identifier{name}.Sanitize()
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+ident); err != nil {
		return "", err
	}
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+ident); err != nil {
		return "", err
	}
	u, err := url.Parse(serverURL)
	if err != nil {
		return "", err
	}
	u.Path = "/" + name
	return u.String(), nil
}

func dropDatabase(serverURL, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, serverURL)
	if err != nil {
		fmt.Fprintln(os.Stderr, "load: drop pgbench database:", err)
		return
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
		fmt.Fprintln(os.Stderr, "load: drop pgbench database:", err)
	}
}

func withParam(rawURL, key, value string) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil || !strings.Contains(rawURL, "://") {
		return "", errors.New("-pool-max-conns needs the database URL in postgres://… form")
	}
	q := u.Query()
	q.Set(key, value)
	u.RawQuery = q.Encode()
	return u.String(), nil
}

func freePort() (int, error) {
	ports, err := freePorts(1)
	if err != nil {
		return 0, err
	}
	return ports[0], nil
}

// freePorts returns n distinct free ports of loopback: each is held until all are found, since
// the kernel may hand a port just closed out again (two freePort calls once gave the service
// alone and its pprof server the same port, and the heap was asked of the service).
func freePorts(n int) ([]int, error) {
	ports := make([]int, n)
	for i := range ports {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer l.Close()
		ports[i] = l.Addr().(*net.TCPAddr).Port
	}
	return ports, nil
}
