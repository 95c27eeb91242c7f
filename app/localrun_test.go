package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/postgres/pgtest"
	"github.com/rewardsco/rewards/app"
)

// lockedBuffer is the banner's writer: Serve writes it while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// localRun is one `rewards serve` on local defaults (development mode, demo seed, the
// in-process fakes), on a given database and data directory, as `go tool task run` starts it.
type localRun struct {
	t    *testing.T
	base string // where the test reaches it
	demo app.DemoCredentials
	stop func()
}

const localRunAdmin = "rat_local-run-test-admin-token-0123456789"

// startLocalRun runs app.Serve until the returned run is stopped; env adds to the local
// defaults (REWARDS_HTTP_ADDR, REWARDS_PUBLIC_URL).
func startLocalRun(t *testing.T, databaseURL, dataDir string, env map[string]string) *localRun {
	t.Helper()
	vars := map[string]string{"DATABASE_URL": databaseURL, "REWARDS_DATA_DIR": dataDir, "REWARDS_ADMIN_TOKEN": localRunAdmin,
		"REWARDS_HTTP_ADDR": "127.0.0.1:0"}
	for k, v := range env {
		vars[k] = v
	}
	cfg, err := app.LoadConfig(func(k string) string { return vars[k] })
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	out := &lockedBuffer{}
	done := make(chan error, 1)
	go func() { done <- app.Serve(ctx, cfg, slog.New(slog.DiscardHandler), out) }()
	port := regexp.MustCompile(`API docs: +http://localhost:(\d+)/docs`)
	var m []string
	require.Eventually(t, func() bool {
		select {
		case err := <-done:
			done <- err
			return true
		default:
		}
		m = port.FindStringSubmatch(out.String())
		return m != nil
	}, 2*time.Minute, 20*time.Millisecond)
	require.NotNil(t, m, "the service did not come up; banner: %s", out.String())
	r := &localRun{t: t, base: "http://127.0.0.1:" + m[1]}
	stopped := false
	r.stop = func() {
		if !stopped {
			stopped = true
			cancel()
			require.NoError(t, <-done)
		}
	}
	t.Cleanup(r.stop)
	b, err := os.ReadFile(filepath.Join(dataDir, "demo.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &r.demo))
	return r
}

// get fetches a URL with the demo test key; it returns the status, content type and body.
func (r *localRun) get(url string, headers ...string) (int, string, []byte) {
	r.t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	require.NoError(r.t, err)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(r.t, err, url)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(r.t, err)
	return res.StatusCode, res.Header.Get("Content-Type"), body
}

// api fetches an API path with the demo's test key and returns the envelope's data.
func (r *localRun) api(path string) map[string]any {
	r.t.Helper()
	status, _, body := r.get(r.base+path, "x-api-key", r.demo.TestKey)
	require.Equal(r.t, 200, status, string(body))
	var env struct {
		Data map[string]any `json:"data"`
	}
	require.NoError(r.t, json.Unmarshal(body, &env), string(body))
	return env.Data
}

// served is the home screen's touchpoint: its offer's image and link.
func (r *localRun) served() (image, link string) {
	r.t.Helper()
	item, _ := r.api("/v2/touchpoints/serve?screen=home")["item"].(map[string]any)
	require.NotNil(r.t, item, "the demo's home placement serves an offer")
	cta, _ := item["cta"].(map[string]any)
	return item["imageUrl"].(string), cta["url"].(string)
}

// treeLinks are the links of the demo tree's nodes (cta.action).
func (r *localRun) treeLinks() []string {
	r.t.Helper()
	var links []string
	for _, n := range r.api("/touchpoints/name/Home")["nodes"].([]any) {
		if cta, ok := n.(map[string]any)["cta"].(map[string]any); ok && cta["action"] != nil {
			links = append(links, cta["action"].(string))
		}
	}
	require.NotEmpty(r.t, links, "the demo tree lists rewards")
	return links
}

// requireImage fetches url: a 200 image.
func (r *localRun) requireImage(url string) {
	r.t.Helper()
	status, kind, body := r.get(url)
	require.Equal(r.t, 200, status, "image %s: %s", url, body)
	require.True(r.t, strings.HasPrefix(kind, "image/"), "image %s is %s", url, kind)
}

// requirePage follows a link offered to players: a 200 HTML page.
func (r *localRun) requirePage(url string) string {
	r.t.Helper()
	status, kind, body := r.get(url)
	require.Equal(r.t, 200, status, "link %s: %s", url, body)
	require.True(r.t, strings.HasPrefix(kind, "text/html"), "link %s is %s", url, kind)
	return string(body)
}

// storeURL is the demo game's storeUrl, as the operator API shows it.
func (r *localRun) storeURL() string {
	r.t.Helper()
	status, _, body := r.get(r.base+"/admin/v1/studios/"+r.demo.StudioID.String()+"/games", "Authorization", "Bearer "+localRunAdmin)
	require.Equal(r.t, 200, status, string(body))
	var games []map[string]any
	require.NoError(r.t, json.Unmarshal(body, &games), string(body))
	for _, g := range games {
		if g["id"] == r.demo.GameID.String() {
			return g["storeUrl"].(string)
		}
	}
	r.t.Fatalf("the demo game is not listed: %s", body)
	return ""
}

// The local run stays whole across restarts and addresses: brand images synced from the
// in-process fake voucher provider (on a new loopback port at every start) still load after a
// restart, the demo game's storeUrl follows REWARDS_PUBLIC_URL, and the links touchpoints offer
// open a page.
func TestLocalRunStaysWholeAcrossRestarts(t *testing.T) {
	t.Parallel()
	dbURL, dataDir := pgtest.URL(t), t.TempDir()

	// First run, on a port of its own; the public address defaults to http://localhost:<port>.
	first := startLocalRun(t, dbURL, dataDir, nil)
	require.True(t, first.demo.CatalogueSynced)
	port := strings.TrimPrefix(first.base, "http://127.0.0.1:")
	public := "http://localhost:" + port
	require.Equal(t, public, first.demo.PublicURL)
	require.Equal(t, public+"/store", first.storeURL())
	first.requireDemoStore()
	image, link := first.served()
	require.True(t, strings.HasPrefix(image, public+"/"), image)
	first.requireImage(image)
	require.True(t, strings.HasPrefix(link, public+"/store/rewards/"), link)
	first.requirePage(link)
	for _, l := range first.treeLinks() {
		require.True(t, strings.HasPrefix(l, public+"/store/rewards/"), l)
		first.requirePage(l)
	}
	first.stop()

	// Again on the same address: the fake provider listens elsewhere, yet the image URL the
	// first run synced loads, and so does the link it offered.
	second := startLocalRun(t, dbURL, dataDir, map[string]string{"REWARDS_HTTP_ADDR": "127.0.0.1:" + port})
	second.requireImage(image)
	second.requirePage(link)
	again, _ := second.served()
	require.Equal(t, image, again, "a restart on the same address changes no image address")
	second.stop()

	// On another address, given by REWARDS_PUBLIC_URL: the store, its images and links follow.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	other := ln.Addr().(*net.TCPAddr).Port
	require.NoError(t, ln.Close())
	moved := fmt.Sprintf("http://127.0.0.1:%d", other)
	third := startLocalRun(t, dbURL, dataDir, map[string]string{"REWARDS_HTTP_ADDR": moved[len("http://"):], "REWARDS_PUBLIC_URL": moved})
	require.Equal(t, moved+"/store", third.storeURL())
	image, link = third.served()
	require.True(t, strings.HasPrefix(image, moved+"/"), image)
	third.requireImage(image)
	require.True(t, strings.HasPrefix(link, moved+"/store/rewards/"), link)
	third.requirePage(link)
	for _, l := range third.treeLinks() {
		require.True(t, strings.HasPrefix(l, moved+"/store/rewards/"), l)
		third.requirePage(l)
	}
	status, kind, _ := third.get(moved + "/store/rewards/00000000-0000-0000-0000-000000000000")
	require.Equal(t, 404, status, "an unknown reward's page is 404")
	require.True(t, strings.HasPrefix(kind, "text/html"), kind)
}
