package harness

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"time"
)

// PostgresImageEnv names the environment variable that overrides the
// PostgreSQL image, e.g. REWARDS_E2E_POSTGRES_IMAGE=postgres:15 on a machine
// that can pull from a registry. The image must honour POSTGRES_USER,
// POSTGRES_PASSWORD and POSTGRES_DB like the official image does.
const PostgresImageEnv = "REWARDS_E2E_POSTGRES_IMAGE"

// PostgresImageRepo is the repository of the locally built PostgreSQL image.
const PostgresImageRepo = "rewards-e2e-postgres"

// postgresImageDir is the directory, relative to the module root, with
// build.sh and the files it puts into the image.
const postgresImageDir = "e2e/postgres-image"

var postgresImageMemo struct {
	sync.Mutex
	ref string
}

// PostgresImage returns the PostgreSQL 15 image to run: the value of
// $REWARDS_E2E_POSTGRES_IMAGE if set, otherwise
// "rewards-e2e-postgres:<hash>", where <hash> covers every file in
// e2e/postgres-image. That image is built with e2e/postgres-image/build.sh
// (mmdebstrap + docker import, about a minute) only if docker does not have it
// yet; concurrent callers in other test processes wait for one build.
func PostgresImage(ctx context.Context) (string, error) {
	if ref := os.Getenv(PostgresImageEnv); ref != "" {
		return ref, nil
	}
	postgresImageMemo.Lock()
	defer postgresImageMemo.Unlock()
	if postgresImageMemo.ref != "" {
		return postgresImageMemo.ref, nil
	}

	root, err := ModuleRoot()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(root, postgresImageDir)
	sum, err := hashDir(dir)
	if err != nil {
		return "", fmt.Errorf("harness: hash %s: %w", dir, err)
	}
	ref := PostgresImageRepo + ":" + sum[:12]
	err = ensureImage(ctx, ref, func() error {
		fmt.Fprintf(os.Stderr, "harness: building PostgreSQL image %s with %s/build.sh (first run only)\n", ref, postgresImageDir)
		start := time.Now()
		if _, err := run(ctx, dir, nil, "sh", filepath.Join(dir, "build.sh"), ref); err != nil {
			return fmt.Errorf("harness: build PostgreSQL image: %w", err)
		}
		fmt.Fprintf(os.Stderr, "harness: built %s in %s\n", ref, time.Since(start).Round(time.Second))
		return nil
	})
	if err != nil {
		return "", err
	}
	postgresImageMemo.ref = ref
	return ref, nil
}

// hashDir returns the hex sha256 of the names, modes and contents of the
// regular files directly in dir.
func hashDir(dir string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	h := sha256.New()
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s %o\n", e.Name(), info.Mode().Perm()&0o111)
		if err := hashFile(h, filepath.Join(dir, e.Name())); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func hashFile(w io.Writer, name string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}

// HostCABundle is the CA bundle copied into images built by GoImage.
const HostCABundle = "/etc/ssl/certs/ca-certificates.crt"

// NonRootUID is the uid and gid that images built by GoImage run as.
const NonRootUID = 65532

const (
	passwdFile = "root:x:0:0:root:/root:/sbin/nologin\n" +
		"nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n"
	groupFile = "root:x:0:\nnonroot:x:65532:\n"
)

// goImageMemo holds one result of GoImage per (name, pkg) for this process.
var goImageMemo struct {
	sync.Mutex
	m map[[2]string]*goImageResult
}

type goImageResult struct {
	once sync.Once
	ref  string
	err  error
}

// GoImage builds the Go main package pkg (an import path, or a path relative
// to the module root such as "./app/cmd/rewards") as a static linux binary
// (CGO_ENABLED=0, -trimpath) and packs it with the root Dockerfile into the
// image "<name>:<tag>", where <tag> is the first 12 hex digits of the sha256
// of the build context (binary, Dockerfile, CA bundle, passwd, group). Go
// builds are reproducible, so unchanged sources give the same tag and the
// docker build is skipped when the image already exists.
//
// The image runs /app as uid/gid 65532 ("nonroot") with the host's CA bundle.
//
// The result is kept for the rest of the process: parallel tests asking for
// the same image wait for one build (go build and docker build) instead of
// each running their own. Across test processes, ensureImage's lock makes
// sure that only one of them runs docker build for a tag.
func GoImage(ctx context.Context, name, pkg string) (string, error) {
	goImageMemo.Lock()
	if goImageMemo.m == nil {
		goImageMemo.m = map[[2]string]*goImageResult{}
	}
	r := goImageMemo.m[[2]string{name, pkg}]
	if r == nil {
		r = &goImageResult{}
		goImageMemo.m[[2]string{name, pkg}] = r
	}
	goImageMemo.Unlock()
	r.once.Do(func() { r.ref, r.err = buildGoImage(ctx, name, pkg) })
	return r.ref, r.err
}

// buildGoImage is GoImage without the memo.
func buildGoImage(ctx context.Context, name, pkg string) (string, error) {
	root, err := ModuleRoot()
	if err != nil {
		return "", err
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go") //nolint:staticcheck // fallback only
	}

	bctx, err := os.MkdirTemp("", "rewards-e2e-image-")
	if err != nil {
		return "", fmt.Errorf("harness: create build context: %w", err)
	}
	defer os.RemoveAll(bctx)

	_, err = run(ctx, root, []string{"CGO_ENABLED=0", "GOOS=linux", "GOARCH=" + runtime.GOARCH},
		goTool, "build", "-trimpath", "-o", filepath.Join(bctx, "app"), pkg)
	if err != nil {
		return "", fmt.Errorf("harness: build Go package %s: %w", pkg, err)
	}
	files := []struct{ src, dst string }{
		{filepath.Join(root, "Dockerfile"), "Dockerfile"},
		{filepath.Join(root, ".dockerignore"), ".dockerignore"},
		{HostCABundle, "ca-certificates.crt"},
	}
	for _, f := range files {
		if err := copyFile(f.src, filepath.Join(bctx, f.dst)); err != nil {
			return "", fmt.Errorf("harness: prepare build context: %w", err)
		}
	}
	if err := os.WriteFile(filepath.Join(bctx, "passwd"), []byte(passwdFile), 0o644); err != nil {
		return "", fmt.Errorf("harness: prepare build context: %w", err)
	}
	if err := os.WriteFile(filepath.Join(bctx, "group"), []byte(groupFile), 0o644); err != nil {
		return "", fmt.Errorf("harness: prepare build context: %w", err)
	}
	// An empty directory that becomes the image's writable /data.
	if err := os.Mkdir(filepath.Join(bctx, "data"), 0o755); err != nil {
		return "", fmt.Errorf("harness: prepare build context: %w", err)
	}

	h := sha256.New()
	for _, f := range []string{"app", "Dockerfile", ".dockerignore", "ca-certificates.crt", "passwd", "group"} {
		fmt.Fprintf(h, "%s\n", f)
		if err := hashFile(h, filepath.Join(bctx, f)); err != nil {
			return "", fmt.Errorf("harness: hash build context: %w", err)
		}
	}
	ref := name + ":" + hex.EncodeToString(h.Sum(nil))[:12]

	err = ensureImage(ctx, ref, func() error {
		if _, err := run(ctx, bctx, nil, "docker", "build", "-q", "-t", ref, bctx); err != nil {
			return fmt.Errorf("harness: docker build %s (package %s): %w", ref, pkg, err)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	return ref, nil
}

func copyFile(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o644)
}
