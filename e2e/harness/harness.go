// Package harness starts the containers that the Rewards end-to-end tests run
// against: a PostgreSQL server, the service itself and (later) fakes of
// external APIs, all on a private docker network.
//
// Nothing is pulled from an image registry unless asked for:
//
//   - [PostgresImage] builds a PostgreSQL 15 image from Debian packages with
//     e2e/postgres-image/build.sh (or returns $REWARDS_E2E_POSTGRES_IMAGE,
//     e.g. "postgres:15", on machines that can pull).
//   - [GoImage] compiles a Go main package statically and wraps it in the
//     root Dockerfile (FROM scratch, non-root user 65532).
//
// Both are content addressed: the tag is a hash of what went into the image,
// and an image that already exists is reused, so only the first run on a
// machine pays for the build.
//
// Containers are started with testcontainers-go. The Ryuk reaper is disabled
// (TESTCONTAINERS_RYUK_DISABLED=true unless already set) because its image
// cannot be pulled; instead every container and network is removed at
// t.Cleanup. When a test fails, the logs of its containers are written to the
// test output before they are removed.
//
// A typical test:
//
//	ctx := context.Background()
//	svcImage, err := harness.GoImage(ctx, "rewards", "./app/cmd/rewards")
//	if err != nil { t.Fatal(err) }
//	net := harness.NewNetwork(ctx, t)
//	pg := harness.StartPostgres(ctx, t, net) // builds the image on first use
//	svc := harness.StartContainer(ctx, t, harness.ContainerRequestOptions{
//		Image:        svcImage,
//		Env:          map[string]string{"DATABASE_URL": pg.InternalDSN},
//		Network:      net,
//		Aliases:      []string{"rewards"},
//		ExposedPort:  "8080/tcp",
//		WaitHTTPPath: "/healthz",
//	})
//	resp, err := http.Get(svc.BaseURL + "/healthz")
//
// The helpers that take a testing.TB call t.Fatal on failure and so must be
// called from the test goroutine.
package harness

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

func init() {
	// The Ryuk reaper image cannot be pulled here; cleanup is done with
	// t.Cleanup instead. testcontainers reads its configuration once, on first
	// use, which is after this package's init.
	if _, ok := os.LookupEnv("TESTCONTAINERS_RYUK_DISABLED"); !ok {
		_ = os.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
	}
}

var setupOnce sync.Once

// setup points testcontainers at 127.0.0.1 for published ports when the docker
// daemon is local but the tests run in a container (a /.dockerenv file).
// testcontainers then assumes the daemon is on another host and uses the
// default gateway, which is wrong when dockerd runs inside the same container
// (as on the CI machines). The daemon counts as local if it reports our host
// name, or if the gateway of its "bridge" network is one of our addresses.
// TESTCONTAINERS_HOST_OVERRIDE, if set, always wins.
func setup(ctx context.Context) {
	setupOnce.Do(func() {
		if _, ok := os.LookupEnv("TESTCONTAINERS_HOST_OVERRIDE"); ok {
			return
		}
		if h := os.Getenv("DOCKER_HOST"); h != "" && !strings.HasPrefix(h, "unix://") {
			return
		}
		if _, err := os.Stat("/.dockerenv"); err != nil {
			return // not in a container: testcontainers uses localhost
		}
		if daemonIsLocal(ctx) {
			_ = os.Setenv("TESTCONTAINERS_HOST_OVERRIDE", "127.0.0.1")
		}
	})
}

func daemonIsLocal(ctx context.Context) bool {
	if out, err := exec.CommandContext(ctx, "docker", "info", "--format", "{{.Name}}").Output(); err == nil {
		if hn, err := os.Hostname(); err == nil && strings.TrimSpace(string(out)) == hn {
			return true
		}
	}
	out, err := exec.CommandContext(ctx, "docker", "network", "inspect", "bridge",
		"--format", "{{range .IPAM.Config}}{{.Gateway}} {{end}}").Output()
	if err != nil {
		return false
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	for _, gw := range strings.Fields(string(out)) {
		for _, a := range addrs {
			if ipn, ok := a.(*net.IPNet); ok && ipn.IP.String() == gw {
				return true
			}
		}
	}
	return false
}

var (
	moduleRootOnce sync.Once
	moduleRootDir  string
	moduleRootErr  error
)

// ModuleRoot returns the root directory of the Go module the tests run in:
// the nearest directory at or above the working directory that holds a go.mod
// file (go test runs tests in their package directory).
func ModuleRoot() (string, error) {
	moduleRootOnce.Do(func() {
		dir, err := os.Getwd()
		if err != nil {
			moduleRootErr = fmt.Errorf("harness: get working directory: %w", err)
			return
		}
		for {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				moduleRootDir = dir
				return
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				moduleRootErr = errors.New("harness: no go.mod found in the working directory or any parent")
				return
			}
			dir = parent
		}
	})
	return moduleRootDir, moduleRootErr
}

// run runs a command and returns its combined output. The error includes the
// command line and the tail of its output.
func run(ctx context.Context, dir string, env []string, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.Stdin = nil // /dev/null: nothing may wait for input (CI has none)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		return out.Bytes(), fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, tail(out.String(), 4000))
	}
	return out.Bytes(), nil
}

// tail returns at most the last n bytes of s.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "...\n" + s[len(s)-n:]
}

// imageExists reports whether the docker daemon has an image with this
// reference.
func imageExists(ctx context.Context, ref string) (bool, error) {
	cmd := exec.CommandContext(ctx, "docker", "image", "inspect", "--format", "{{.Id}}", ref)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		var exitErr *exec.ExitError
		if errors.As(err, &exitErr) && strings.Contains(strings.ToLower(stderr.String()), "no such image") {
			return false, nil
		}
		return false, fmt.Errorf("docker image inspect %s: %w: %s", ref, err, strings.TrimSpace(stderr.String()))
	}
	return true, nil
}

// withFileLock runs fn while holding an exclusive flock on a file named after
// key in os.TempDir(). It serializes image builds across the test binaries
// that go test runs in parallel (one per package).
func withFileLock(key string, fn func() error) error {
	name := filepath.Join(os.TempDir(), "rewards-e2e-"+strings.NewReplacer("/", "_", ":", "_").Replace(key)+".lock")
	f, err := os.OpenFile(name, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return fmt.Errorf("harness: open lock file: %w", err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("harness: lock %s: %w", name, err)
	}
	defer syscall.Flock(int(f.Fd()), syscall.LOCK_UN) //nolint:errcheck // closing the file unlocks too
	return fn()
}

// ensureImage makes sure the image ref exists, calling build (under a lock
// shared by all processes) only if it does not.
func ensureImage(ctx context.Context, ref string, build func() error) error {
	ok, err := imageExists(ctx, ref)
	if err != nil || ok {
		return err
	}
	return withFileLock(ref, func() error {
		// Another process may have built it while we waited for the lock.
		ok, err := imageExists(ctx, ref)
		if err != nil || ok {
			return err
		}
		if err := build(); err != nil {
			return err
		}
		ok, err = imageExists(ctx, ref)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("harness: image %s does not exist after building it", ref)
		}
		return nil
	})
}
