package harness

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // "pgx" database/sql driver for the wait strategy
	"github.com/moby/moby/api/types/container"
	mobynetwork "github.com/moby/moby/api/types/network"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
	tclog "github.com/testcontainers/testcontainers-go/log"
	"github.com/testcontainers/testcontainers-go/network"
	"github.com/testcontainers/testcontainers-go/wait"
)

// DefaultStartupTimeout bounds how long a container may take to become ready
// (on the first start and on every Start).
const DefaultStartupTimeout = 2 * time.Minute

// cleanupTimeout bounds dumping logs and removing a container at t.Cleanup.
const cleanupTimeout = 30 * time.Second

// Network is a private docker network. Containers on it reach each other by
// their network aliases.
type Network struct {
	// Name is the docker network name.
	Name string

	nw *testcontainers.DockerNetwork
}

// NewNetwork creates a docker network (bridge driver, random name) that is
// removed at t.Cleanup, after the containers started later in the test.
func NewNetwork(ctx context.Context, t testing.TB) *Network {
	t.Helper()
	setup(ctx)
	nw, err := network.New(ctx)
	if err != nil {
		t.Fatalf("harness: create docker network: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
		defer cancel()
		if err := nw.Remove(ctx); err != nil {
			t.Errorf("harness: remove docker network %s: %v", nw.Name, err)
		}
	})
	t.Logf("harness: created docker network %s", nw.Name)
	return &Network{Name: nw.Name, nw: nw}
}

// ContainerRequestOptions describes a container for StartContainer.
type ContainerRequestOptions struct {
	// Image is the image reference, e.g. from GoImage. Required.
	Image string
	// Env is the container environment.
	Env map[string]string
	// Cmd, if set, replaces the image's CMD (the arguments to its entrypoint).
	Cmd []string
	// Network, if set, attaches the container to this network.
	Network *Network
	// Aliases are the container's host names on Network.
	Aliases []string
	// ExposedPort is the container port published on a random host port,
	// e.g. "8080/tcp"; BaseURL points at it. Optional.
	ExposedPort string
	// WaitHTTPPath, if set, makes (re)starting wait until GET WaitHTTPPath on
	// ExposedPort answers 200. Without it, starting waits until ExposedPort
	// accepts TCP connections (if ExposedPort is set).
	WaitHTTPPath string
	// StartupTimeout bounds the wait for readiness; DefaultStartupTimeout if 0.
	StartupTimeout time.Duration

	// stopSignal overrides the image's STOPSIGNAL.
	stopSignal string
	// notHTTP leaves BaseURL empty (for PostgreSQL).
	notHTTP bool
}

// Container is a started container, removed at t.Cleanup. Its methods call
// t.Fatal on failure, so call them from the test goroutine.
type Container struct {
	// Image is the image the container runs.
	Image string
	// Name is the docker container name (without the leading slash).
	Name string
	// BaseURL is "http://127.0.0.1:<port>" for ExposedPort, or "" if no port
	// is exposed. Docker may map a different host port after Stop/Kill and
	// Start; Start updates BaseURL.
	BaseURL string

	t    testing.TB
	opts ContainerRequestOptions
	c    *testcontainers.DockerContainer
	mu   sync.Mutex
}

// StartContainer creates and starts a container and waits until it is ready
// (see ContainerRequestOptions.WaitHTTPPath). At t.Cleanup the container is
// removed; if the test failed, its logs are first written with t.Log.
func StartContainer(ctx context.Context, t testing.TB, opts ContainerRequestOptions) *Container {
	t.Helper()
	if opts.Image == "" {
		t.Fatal("harness: StartContainer: ContainerRequestOptions.Image is empty")
	}
	if opts.StartupTimeout == 0 {
		opts.StartupTimeout = DefaultStartupTimeout
	}
	if opts.WaitHTTPPath != "" && opts.ExposedPort == "" {
		t.Fatalf("harness: StartContainer %s: WaitHTTPPath %q needs ExposedPort", opts.Image, opts.WaitHTTPPath)
	}

	customizers := []testcontainers.ContainerCustomizer{
		testcontainers.WithLogger(tclog.TestLogger(t)),
	}
	if len(opts.Env) > 0 {
		customizers = append(customizers, testcontainers.WithEnv(opts.Env))
	}
	if len(opts.Cmd) > 0 {
		customizers = append(customizers, testcontainers.WithCmd(opts.Cmd...))
	}
	if opts.Network != nil {
		customizers = append(customizers, network.WithNetworkName(opts.Aliases, opts.Network.Name))
	} else if len(opts.Aliases) > 0 {
		t.Fatalf("harness: StartContainer %s: Aliases %v need a Network", opts.Image, opts.Aliases)
	}
	if opts.stopSignal != "" {
		customizers = append(customizers, testcontainers.WithConfigModifier(func(c *container.Config) {
			c.StopSignal = opts.stopSignal
		}))
	}
	if opts.ExposedPort != "" {
		customizers = append(customizers, testcontainers.WithExposedPorts(opts.ExposedPort))
		var strategy wait.Strategy
		if opts.WaitHTTPPath != "" {
			strategy = wait.ForHTTP(opts.WaitHTTPPath).
				WithPort(opts.ExposedPort).
				WithForcedIPv4LocalHost().
				WithStartupTimeout(opts.StartupTimeout).
				WithPollInterval(200 * time.Millisecond)
		} else {
			strategy = wait.ForListeningPort(opts.ExposedPort).
				SkipInternalCheck(). // needs a shell in the image; scratch has none
				WithStartupTimeout(opts.StartupTimeout).
				WithPollInterval(200 * time.Millisecond)
		}
		customizers = append(customizers, testcontainers.WithWaitStrategyAndDeadline(opts.StartupTimeout, strategy))
	}
	return startContainer(ctx, t, opts, customizers)
}

func startContainer(ctx context.Context, t testing.TB, opts ContainerRequestOptions, customizers []testcontainers.ContainerCustomizer) *Container {
	t.Helper()
	setup(ctx)
	start := time.Now()
	tc, err := testcontainers.Run(ctx, opts.Image, customizers...)
	c := &Container{Image: opts.Image, t: t, opts: opts, c: tc}
	if tc != nil {
		if info, ierr := tc.Inspect(ctx); ierr == nil {
			c.Name = strings.TrimPrefix(info.Name, "/")
		}
		t.Cleanup(c.cleanup)
	}
	if err != nil {
		// The cleanup registered above dumps the logs, as the test failed.
		t.Fatalf("harness: start container from image %s: %v", opts.Image, err)
	}
	c.refreshBaseURL(ctx)
	where := ""
	if opts.ExposedPort != "" {
		where = fmt.Sprintf(", port %s published on %s", opts.ExposedPort, c.HostAddr(ctx, opts.ExposedPort))
	}
	onNet := ""
	if opts.Network != nil {
		onNet = fmt.Sprintf(" on network %s as %v", opts.Network.Name, opts.Aliases)
	}
	t.Logf("harness: started container %s (image %s)%s%s in %s", c.Name, c.Image, onNet, where, time.Since(start).Round(time.Millisecond))
	return c
}

// cleanup dumps the logs if the test failed and removes the container.
func (c *Container) cleanup() {
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	if c.t.Failed() {
		c.t.Logf("harness: test failed; logs of container %s (image %s):\n%s", c.Name, c.Image, c.logs(ctx))
	}
	if err := c.c.Terminate(ctx); err != nil {
		c.t.Errorf("harness: remove container %s (image %s): %v", c.Name, c.Image, err)
	}
}

// host returns the address on which the container's published ports are
// reachable: 127.0.0.1 for a local docker daemon.
func (c *Container) host(ctx context.Context) (string, error) {
	h, err := c.c.Host(ctx)
	if err != nil {
		return "", err
	}
	if h == "localhost" {
		h = "127.0.0.1"
	}
	return h, nil
}

// HostAddr returns "host:port" on which the container port (e.g.
// "5432/tcp") is published on the docker host. It is looked up each time:
// the mapping may change when the container is restarted.
func (c *Container) HostAddr(ctx context.Context, port string) string {
	c.t.Helper()
	h, err := c.host(ctx)
	if err != nil {
		c.t.Fatalf("harness: docker host of container %s: %v", c.Name, err)
	}
	p, err := c.c.MappedPort(ctx, port)
	if err != nil {
		c.t.Fatalf("harness: published port %s of container %s (image %s): %v", port, c.Name, c.Image, err)
	}
	return net.JoinHostPort(h, p.Port())
}

func (c *Container) refreshBaseURL(ctx context.Context) {
	c.t.Helper()
	if c.opts.ExposedPort == "" || c.opts.notHTTP {
		return
	}
	c.BaseURL = "http://" + c.HostAddr(ctx, c.opts.ExposedPort)
}

// Stop stops the container gracefully (its STOPSIGNAL, then SIGKILL after
// 10s). The container and its file system remain; Start starts it again.
func (c *Container) Stop(ctx context.Context) {
	c.t.Helper()
	timeout := 10 * time.Second
	if err := c.c.Stop(ctx, &timeout); err != nil {
		c.t.Fatalf("harness: stop container %s (image %s): %v", c.Name, c.Image, err)
	}
	c.t.Logf("harness: stopped container %s (image %s)", c.Name, c.Image)
}

// Kill sends SIGKILL to the container (a crash). Start starts it again.
func (c *Container) Kill(ctx context.Context) {
	c.t.Helper()
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		c.t.Fatalf("harness: docker client: %v", err)
	}
	defer cli.Close()
	if _, err := cli.ContainerKill(ctx, c.c.GetContainerID(), client.ContainerKillOptions{Signal: "SIGKILL"}); err != nil {
		c.t.Fatalf("harness: kill container %s (image %s): %v", c.Name, c.Image, err)
	}
	// Wait until docker reports it as stopped, so that a following Start does
	// not race with the exit.
	deadline := time.Now().Add(30 * time.Second)
	for {
		st, err := c.c.State(ctx)
		if err != nil {
			c.t.Fatalf("harness: state of container %s: %v", c.Name, err)
		}
		if !st.Running {
			break
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("harness: container %s still running 30s after SIGKILL", c.Name)
		}
		time.Sleep(50 * time.Millisecond)
	}
	c.t.Logf("harness: killed container %s (image %s)", c.Name, c.Image)
}

// Start starts the stopped (or killed) container again and waits until it is
// ready, like StartContainer did. It updates BaseURL.
func (c *Container) Start(ctx context.Context) {
	c.t.Helper()
	start := time.Now()
	if err := c.c.Start(ctx); err != nil {
		c.t.Fatalf("harness: restart container %s (image %s): %v\nlogs:\n%s", c.Name, c.Image, err, c.logs(ctx))
	}
	c.refreshBaseURL(ctx)
	c.t.Logf("harness: restarted container %s (image %s) in %s", c.Name, c.Image, time.Since(start).Round(time.Millisecond))
}

// Logs returns the container's stdout and stderr so far (of all its runs).
func (c *Container) Logs(ctx context.Context) string {
	return c.logs(ctx)
}

func (c *Container) logs(ctx context.Context) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	rc, err := c.c.Logs(ctx)
	if err != nil {
		return fmt.Sprintf("<cannot read logs: %v>", err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		return string(b) + fmt.Sprintf("\n<cannot read logs: %v>", err)
	}
	return string(b)
}

// Testcontainer returns the underlying testcontainers container, for what
// this package does not wrap (Exec, CopyToContainer, ...).
func (c *Container) Testcontainer() testcontainers.Container {
	return c.c
}

// PostgreSQL credentials used by StartPostgres.
const (
	PostgresUser     = "rewards"
	PostgresPassword = "rewards"
	PostgresDB       = "rewards"
	// PostgresAlias is the host name of the PostgreSQL container on its network.
	PostgresAlias = "postgres"
)

// Postgres is a running PostgreSQL 15 server (user, password and database
// "rewards"), removed at t.Cleanup. Stop, Start, Kill and Logs come from the
// embedded Container.
type Postgres struct {
	*Container

	// InternalDSN is the connection string for other containers on the
	// network: postgres://rewards:rewards@postgres:5432/rewards?sslmode=disable.
	InternalDSN string
}

// StartPostgres starts PostgreSQL from PostgresImage on nw (with network
// alias "postgres") and waits until it accepts SQL connections, checked
// with "SELECT 1" through the published port. That check works for the local
// image and for the official one (whose init-time temporary server listens
// on the unix socket only). Start waits the same way after a Stop.
func StartPostgres(ctx context.Context, t testing.TB, nw *Network) *Postgres {
	t.Helper()
	if nw == nil {
		t.Fatal("harness: StartPostgres: network is nil")
	}
	image, err := PostgresImage(ctx)
	if err != nil {
		t.Fatalf("harness: PostgreSQL image: %v", err)
	}
	opts := ContainerRequestOptions{
		Image: image,
		Env: map[string]string{
			"POSTGRES_USER":     PostgresUser,
			"POSTGRES_PASSWORD": PostgresPassword,
			"POSTGRES_DB":       PostgresDB,
		},
		Network:        nw,
		Aliases:        []string{PostgresAlias},
		ExposedPort:    "5432/tcp",
		StartupTimeout: DefaultStartupTimeout,
		// Fast shutdown (as the official image's STOPSIGNAL): do not wait for
		// clients such as the service's pool to disconnect.
		stopSignal: "SIGINT",
		notHTTP:    true,
	}
	strategy := wait.ForSQL("5432/tcp", "pgx", func(host string, port mobynetwork.Port) string {
		if host == "localhost" {
			host = "127.0.0.1"
		}
		return postgresDSN(host, port.Port())
	}).WithStartupTimeout(opts.StartupTimeout).WithPollInterval(200 * time.Millisecond)
	customizers := []testcontainers.ContainerCustomizer{
		testcontainers.WithLogger(tclog.TestLogger(t)),
		testcontainers.WithEnv(opts.Env),
		network.WithNetworkName(opts.Aliases, nw.Name),
		testcontainers.WithExposedPorts(opts.ExposedPort),
		testcontainers.WithConfigModifier(func(c *container.Config) { c.StopSignal = opts.stopSignal }),
		testcontainers.WithWaitStrategyAndDeadline(opts.StartupTimeout, strategy),
	}
	c := startContainer(ctx, t, opts, customizers)
	return &Postgres{
		Container:   c,
		InternalDSN: postgresDSN(PostgresAlias, "5432"),
	}
}

// HostDSN returns the connection string for the test process itself, through
// the port published on 127.0.0.1. It is looked up each time, since the port
// may change after Stop and Start.
func (p *Postgres) HostDSN(ctx context.Context) string {
	p.t.Helper()
	host, port, err := net.SplitHostPort(p.HostAddr(ctx, "5432/tcp"))
	if err != nil {
		p.t.Fatalf("harness: %v", err)
	}
	return postgresDSN(host, port)
}

// DB opens a database/sql handle (pgx driver) on HostDSN, closed at t.Cleanup.
// Note that after Stop/Start the host port may change, and the handle then
// points at the old port; call DB again.
func (p *Postgres) DB(ctx context.Context) *sql.DB {
	p.t.Helper()
	db, err := sql.Open("pgx", p.HostDSN(ctx))
	if err != nil {
		p.t.Fatalf("harness: open PostgreSQL: %v", err)
	}
	p.t.Cleanup(func() { db.Close() })
	return db
}

func postgresDSN(host, port string) string {
	u := url.URL{
		Scheme:   "postgres",
		User:     url.UserPassword(PostgresUser, PostgresPassword),
		Host:     net.JoinHostPort(host, port),
		Path:     "/" + PostgresDB,
		RawQuery: "sslmode=disable",
	}
	return u.String()
}
