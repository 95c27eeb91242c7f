// Package localpg runs a private PostgreSQL server from the machine's own server binaries, for
// local development and tests: its data in a directory of the caller's choosing, its socket in
// a private temporary directory, listening on a free loopback port. Run as root, the server runs
// as an unprivileged user, as PostgreSQL requires.
package localpg

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// ErrNoBinaries means no PostgreSQL server binaries were found.
var ErrNoBinaries = errors.New("no PostgreSQL server binaries found (looked on PATH, via pg_config --bindir, " +
	"and under /usr/lib/postgresql/*/bin): install them (Debian: apt-get install postgresql) or set DATABASE_URL " +
	"to a database you run yourself")

const (
	superuser = "rewards"
	database  = "rewards"
)

// Server is a running private PostgreSQL.
type Server struct {
	// URL connects to the "rewards" database over loopback TCP.
	URL string
	// Port is the loopback port the server listens on.
	Port int

	cmd     *exec.Cmd
	done    chan error
	sockDir string
}

// Options configure Start.
type Options struct {
	// DataDir holds the cluster; it is created and initialised on first use and kept.
	DataDir string
	// Log receives the server's output; nil discards it.
	Log func(line string)
	// Port to listen on; zero picks a free one. A fixed port lets a stopped server come back
	// at the same address (tests of outages).
	Port int
}

// FindBinDir returns the directory holding initdb and postgres.
func FindBinDir() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		dir := filepath.Dir(p)
		if _, err := os.Stat(filepath.Join(dir, "postgres")); err == nil {
			return dir, nil
		}
	}
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		dir := strings.TrimSpace(string(out))
		if hasServer(dir) {
			return dir, nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return versionOf(dirs[i]) > versionOf(dirs[j]) })
	for _, dir := range dirs {
		if hasServer(dir) {
			return dir, nil
		}
	}
	return "", ErrNoBinaries
}

func hasServer(dir string) bool {
	for _, bin := range []string{"initdb", "postgres"} {
		if _, err := os.Stat(filepath.Join(dir, bin)); err != nil {
			return false
		}
	}
	return true
}

func versionOf(binDir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return v
}

// Start initialises the cluster in opts.DataDir if needed, starts the server and waits until the
// "rewards" database accepts connections. Stop it with Stop.
func Start(ctx context.Context, opts Options) (*Server, error) {
	binDir, err := FindBinDir()
	if err != nil {
		return nil, err
	}
	dataDir, err := filepath.Abs(opts.DataDir)
	if err != nil {
		return nil, err
	}
	cred, err := serverCredential()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(dataDir), 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", filepath.Dir(dataDir), err)
	}
	password, err := ensurePassword(dataDir + ".password")
	if err != nil {
		return nil, err
	}
	sockDir, err := os.MkdirTemp("", "rewards-pg-")
	if err != nil {
		return nil, err
	}
	if err := chown(sockDir, cred); err != nil {
		return nil, err
	}
	s := &Server{sockDir: sockDir, done: make(chan error, 1)}
	if err := stopLeftover(dataDir); err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(dataDir, "PG_VERSION")); errors.Is(err, os.ErrNotExist) {
		if err := initdb(binDir, dataDir, sockDir, password, cred); err != nil {
			_ = os.RemoveAll(sockDir)
			return nil, err
		}
	}
	s.Port = opts.Port
	if s.Port == 0 {
		if s.Port, err = freePort(); err != nil {
			return nil, err
		}
	}
	s.cmd = exec.Command(filepath.Join(binDir, "postgres"),
		"-D", dataDir, "-k", sockDir, "-p", strconv.Itoa(s.Port),
		"-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200")
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: cred}
	s.cmd.Stdout, s.cmd.Stderr = logWriter(opts.Log), logWriter(opts.Log)
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start postgres: %w", err)
	}
	go func() { s.done <- s.cmd.Wait() }()

	admin := fmt.Sprintf("postgres://%s:%s@127.0.0.1:%d/postgres?sslmode=disable", superuser, password, s.Port)
	if err := s.waitReady(ctx, admin); err != nil {
		s.Stop()
		return nil, err
	}
	if err := createDatabase(ctx, admin, database); err != nil {
		s.Stop()
		return nil, err
	}
	s.URL = fmt.Sprintf("postgres://%s:%s@127.0.0.1:%d/%s?sslmode=disable", superuser, password, s.Port, database)
	return s, nil
}

// Stop shuts the server down (fast shutdown: open sessions are ended, data is safe) and waits.
func (s *Server) Stop() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
	_ = os.RemoveAll(s.sockDir)
}

// CreateDatabase creates database name on the server if it does not exist, and returns its URL.
func (s *Server) CreateDatabase(ctx context.Context, name string) (string, error) {
	u := strings.Replace(s.URL, "/"+database+"?", "/postgres?", 1)
	if err := createDatabase(ctx, u, name); err != nil {
		return "", err
	}
	return strings.Replace(s.URL, "/"+database+"?", "/"+name+"?", 1), nil
}

func (s *Server) waitReady(ctx context.Context, url string) error {
	deadline := time.Now().Add(60 * time.Second)
	for {
		conn, err := pgx.Connect(ctx, url)
		if err == nil {
			_ = conn.Close(ctx)
			return nil
		}
		select {
		case werr := <-s.done:
			return fmt.Errorf("postgres exited while starting (%v); its log above says why", werr)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("postgres did not accept connections within 60s: %w", err)
		}
	}
}

func createDatabase(ctx context.Context, adminURL, name string) error {
	conn, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(ctx)
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return fmt.Errorf("look up database %s: %w", name, err)
	}
	if exists {
		return nil
	}
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		return fmt.Errorf("create database %s: %w", name, err)
	}
	return nil
}

// serverCredential is the identity the server runs as: ours, unless we are root, in which case
// the "postgres" user if the machine has one, else "nobody".
func serverCredential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
	}
	return nil, errors.New("running as root, and neither a postgres nor a nobody user exists to run PostgreSQL as")
}

func chown(path string, cred *syscall.Credential) error {
	if cred == nil {
		return nil
	}
	return filepath.Walk(path, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, int(cred.Uid), int(cred.Gid))
	})
}

func initdb(binDir, dataDir, sockDir, password string, cred *syscall.Credential) error {
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dataDir, err)
	}
	if err := chown(dataDir, cred); err != nil {
		return fmt.Errorf("hand %s to the server user: %w", dataDir, err)
	}
	pwFile := filepath.Join(sockDir, "pwfile")
	if err := os.WriteFile(pwFile, []byte(password+"\n"), 0o600); err != nil {
		return err
	}
	defer os.Remove(pwFile)
	if err := chown(pwFile, cred); err != nil {
		return err
	}
	cmd := exec.Command(filepath.Join(binDir, "initdb"), "-D", dataDir, "-U", superuser,
		"--pwfile", pwFile, "--auth", "scram-sha-256", "-E", "UTF8", "--locale", "C.UTF-8")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := cmd.CombinedOutput(); err != nil {
		hint := ""
		if cred != nil {
			hint = fmt.Sprintf(" (PostgreSQL runs as uid %d here: every directory above %s must be searchable by it)", cred.Uid, dataDir)
		}
		return fmt.Errorf("initdb failed%s: %w\n%s", hint, err, out)
	}
	return nil
}

// ensurePassword returns the cluster's superuser password, generating it on first use.
func ensurePassword(path string) (string, error) {
	if b, err := os.ReadFile(path); err == nil {
		return strings.TrimSpace(string(b)), nil
	}
	pw := rand.Text()
	if err := os.WriteFile(path, []byte(pw+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return pw, nil
}

// stopLeftover stops a server a killed earlier run left behind on the same data directory.
func stopLeftover(dataDir string) error {
	b, err := os.ReadFile(filepath.Join(dataDir, "postmaster.pid"))
	if err != nil {
		return nil
	}
	pid, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]))
	if err != nil || pid <= 0 || syscall.Kill(pid, 0) != nil {
		return nil // stale file: PostgreSQL removes it itself
	}
	_ = syscall.Kill(pid, syscall.SIGINT)
	for i := 0; i < 300; i++ {
		if syscall.Kill(pid, 0) != nil {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("a PostgreSQL (pid %d) still runs on %s and did not stop", pid, dataDir)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

type lineWriter struct{ log func(string) }

func (w lineWriter) Write(p []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		w.log(line)
	}
	return len(p), nil
}

func logWriter(log func(string)) lineWriter {
	if log == nil {
		log = func(string) {}
	}
	return lineWriter{log: log}
}
