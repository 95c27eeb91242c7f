package main

// The service's own memory and start-up, apart from the load generator: the in-process service
// shares this process with the load generator, its HTTP client and a second read model
// (measureSnapshot), so this process's resident memory says nothing about the service's. Beside
// each measured load of the read model, measureService starts the service alone as a child
// process (this binary again, with childEnv set: it only serves, as cmd/rewards serve does)
// on the same database and configuration, times it from the start of the process to its first
// served list, and reads its resident memory (VmRSS, and VmHWM: the peak since it started)
// after a few lists and again after a short rewards-list load; then stops it.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/pprof"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/rewardsco/rewards/app"
)

const (
	// childEnv, set in the environment, makes this binary serve only (serveChild).
	childEnv = "REWARDS_LOAD_SERVE_ONLY"
	// childPprofEnv is the loopback address where the child serves net/http/pprof.
	childPprofEnv = "REWARDS_LOAD_PPROF_ADDR"

	serviceLoad        = 3 * time.Second // the short rewards-list load on the child
	serviceLoadClients = goalClients
)

// serviceFigures are the service's own figures at one catalogue size.
type serviceFigures struct {
	rewards   int64         // what its list counts (total)
	firstList time.Duration // from the start of the process to its first served list
	lists     int           // list requests before the first reading
	rss, hwm  int64         // VmRSS and VmHWM after those lists
	heap      int64         // Go heap in use then (HeapInuse, after a GC)
	loadRSS   int64         // VmRSS after serviceLoad of rewards-list at serviceLoadClients
	loadHWM   int64         // VmHWM then: the peak of the process's life
	loadOK    int           // lists served during that load
	// change is how long a change committed elsewhere (a reward renamed by SQL, as another
	// instance's write commits it) took to be served by this one; reloadHWM is VmHWM after it,
	// the peak through a reload (two snapshots, the served and the loading one).
	change    time.Duration
	reloadHWM int64
	// hide is how long a reward hidden for the game by SQL (what games change of the rewards,
	// loaded alone) took to leave this one's list.
	hide time.Duration
	env  []string // -service-env
}

// serveChild runs the service alone from the environment (DATABASE_URL, REWARDS_*), until
// SIGTERM or SIGINT, with net/http/pprof on childPprofEnv's address when it is set.
func serveChild() error {
	cfg, err := app.LoadConfig(os.Getenv)
	if err != nil {
		return err
	}
	log, err := app.NewLogger(os.Stderr, cfg.LogFormat, cfg.LogLevel)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if addr := os.Getenv(childPprofEnv); addr != "" {
		mux := http.NewServeMux()
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		go func() { _ = srv.ListenAndServe() }()
		defer srv.Close()
	}
	return app.Serve(ctx, cfg, log, io.Discard)
}

// measureService starts the service alone on env's database, waits for its first list with at
// least want rewards, and measures it (serviceFigures); it is stopped before returning. With
// -service-heapprofile the child's heap profile (after a GC) is written beside the figures.
func measureService(ctx context.Context, env *environment, want int64) (*serviceFigures, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	tokens, err := env.playerTokens(ctx, serviceLoadClients)
	if err != nil {
		return nil, err
	}
	ports, err := freePorts(2)
	if err != nil {
		return nil, err
	}
	port, pprofPort := ports[0], ports[1]
	// The in-process service's configuration (startService), on a port of the child's own.
	var vars []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "DATABASE_URL" && !strings.HasPrefix(k, "REWARDS_") {
			vars = append(vars, kv)
		}
	}
	for k, v := range env.serviceVars {
		vars = append(vars, k+"="+v)
	}
	vars = append(vars, fmt.Sprintf("REWARDS_HTTP_ADDR=127.0.0.1:%d", port), "REWARDS_DATA_DIR="+filepath.Join(env.tmp, "data-alone"), childEnv+"=1",
		fmt.Sprintf("%s=127.0.0.1:%d", childPprofEnv, pprofPort))
	vars = append(vars, env.opts.serviceEnv...)
	cmd := exec.Command(exe)
	cmd.Env = vars
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	begin := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the service alone: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	}()

	base := fmt.Sprintf("http://127.0.0.1:%d/rewards?coinId=%s&limit=%d", port, url.QueryEscape(env.coinID), storePageSize)
	f := &serviceFigures{env: env.opts.serviceEnv}
	list := func(ord string, page int) error {
		status, sample, err := env.storeGet(ctx, base+"&contentLogic="+ord+"&page="+strconv.Itoa(page), tokens[0], func(body []byte) error {
			var p struct {
				Total int64 `json:"total"`
			}
			if err := json.Unmarshal(body, &p); err != nil {
				return err
			}
			f.rewards = p.Total
			return nil
		})
		if err == nil && status != http.StatusCreated {
			err = fmt.Errorf("GET /rewards: %d %s", status, sample)
		}
		return err
	}
	deadline := begin.Add(2 * time.Minute)
	for {
		select {
		case err := <-exited:
			exited <- err
			return nil, fmt.Errorf("the service alone stopped while starting: %v", err)
		case <-ctx.Done():
			return nil, ctx.Err()
		default:
		}
		if err := list("DEFAULT", 1); err == nil && f.rewards >= want {
			f.firstList = time.Since(begin)
			break
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the service alone did not list %d rewards within 2 minutes (it lists %d)", want, f.rewards)
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, ord := range []string{"DEFAULT", "NEWEST", "TRENDING", "PRICE_LOW_HIGH", "PRICE_HIGH_LOW", "DISCOUNT"} {
		for page := 1; page <= storePages; page++ {
			if err := list(ord, page); err != nil {
				return nil, fmt.Errorf("the service alone: %w", err)
			}
			f.lists++
		}
	}
	pid := cmd.Process.Pid
	pprofURL := fmt.Sprintf("http://127.0.0.1:%d/debug/pprof/heap", pprofPort)
	if f.heap, err = childHeapInuse(ctx, env, pprofURL); err != nil {
		return nil, err
	}
	if f.rss, f.hwm, err = procMemory(pid); err != nil {
		return nil, err
	}

	ords := []string{"DEFAULT", "NEWEST", "TRENDING", "PRICE_LOW_HIGH", "PRICE_HIGH_LOW", "DISCOUNT"}
	r := loop(ctx, serviceLoadClients, serviceLoad, func(ctx context.Context, client int) (int, []byte, error) {
		u := base + "&contentLogic=" + ords[rand.IntN(len(ords))] + "&page=" + strconv.Itoa(1+rand.IntN(storePages))
		return env.storeGet(ctx, u, tokens[client], func([]byte) error { return nil })
	})
	if r.errors > 0 {
		return nil, fmt.Errorf("the service alone: %d failed lists under load (%s)", r.errors, r.errorSample)
	}
	f.loadOK = r.ok
	if f.loadRSS, f.loadHWM, err = procMemory(pid); err != nil {
		return nil, err
	}
	if f.change, f.hide, err = changeReaches(ctx, env, base, tokens[0]); err != nil {
		return nil, fmt.Errorf("the service alone: %w", err)
	}
	if _, f.reloadHWM, err = procMemory(pid); err != nil {
		return nil, err
	}
	if prefix := env.opts.serviceHeapProfile; prefix != "" {
		path := fmt.Sprintf("%s-%d.pb.gz", prefix, f.rewards)
		if err := fetchTo(ctx, env, pprofURL+"?gc=1", path); err != nil {
			return nil, fmt.Errorf("the service's heap profile: %w", err)
		}
		fmt.Fprintf(os.Stderr, "the service's heap profile at %d rewards: %s (go tool pprof -sample_index=inuse_space -top %s)\n", f.rewards, path, path)
	}
	return f, nil
}

// changeReaches renames the first reward of the list at base (appending " ·" to its name) in the
// database, as another instance's committed write would, and returns how long after the commit
// the list's first page served the new name; then it hides that reward for the game, and returns
// how long it took to leave the page (it is shown again after).
func changeReaches(ctx context.Context, env *environment, base, token string) (rename, hide time.Duration, err error) {
	type item struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	}
	firstPage := func() ([]item, error) {
		var p struct {
			Items []item `json:"items"`
		}
		status, sample, err := env.storeGet(ctx, base+"&contentLogic=DEFAULT&page=1", token, func(body []byte) error { return json.Unmarshal(body, &p) })
		if err == nil && status != http.StatusCreated {
			err = fmt.Errorf("GET /rewards: %d %s", status, sample)
		}
		if err == nil && len(p.Items) == 0 {
			err = errors.New("GET /rewards: an empty page")
		}
		return p.Items, err
	}
	items, err := firstPage()
	if err != nil {
		return 0, 0, err
	}
	id := items[0].ID
	conn, err := pgx.Connect(ctx, env.dbURL)
	if err != nil {
		return 0, 0, err
	}
	defer conn.Close(context.Background())
	// served waits until the first page shows what is wanted, and returns how long after committed.
	served := func(committed time.Time, what string, want func([]item) bool) (time.Duration, error) {
		for deadline := committed.Add(time.Minute); ; {
			items, err := firstPage()
			if err != nil {
				return 0, err
			}
			if want(items) {
				return time.Since(committed), nil
			}
			if time.Now().After(deadline) {
				return 0, fmt.Errorf("reward %s %s: not served a minute later", id, what)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	var renamed string
	if err := conn.QueryRow(ctx, `UPDATE catalogue_rewards SET name = name || ' ·' WHERE id = $1 RETURNING name`, id).Scan(&renamed); err != nil {
		return 0, 0, fmt.Errorf("rename reward %s: %w", id, err)
	}
	if rename, err = served(time.Now(), "renamed", func(items []item) bool { return slices.Contains(items, item{id, renamed}) }); err != nil {
		return 0, 0, err
	}
	hideFor := func(hidden bool) error {
		_, err := conn.Exec(ctx, `INSERT INTO catalogue_game_rewards (game_id, reward_id, hidden)
			SELECT game_id, $2, $3 FROM coins WHERE id = $1
			ON CONFLICT (game_id, reward_id) DO UPDATE SET hidden = excluded.hidden`, env.coinID, id, hidden)
		return err
	}
	if err := hideFor(true); err != nil {
		return 0, 0, fmt.Errorf("hide reward %s: %w", id, err)
	}
	hide, err = served(time.Now(), "hidden", func(items []item) bool {
		return !slices.ContainsFunc(items, func(it item) bool { return it.ID == id })
	})
	if err != nil {
		return 0, 0, err
	}
	if err := hideFor(false); err != nil {
		return 0, 0, fmt.Errorf("show reward %s again: %w", id, err)
	}
	return rename, hide, nil
}

// procMemory reads VmRSS and VmHWM of process pid, in bytes.
func procMemory(pid int) (rss, hwm int64, err error) {
	fh, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || (k != "VmRSS" && k != "VmHWM") {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("/proc/%d/status: %s: %w", pid, k, err)
		}
		if k == "VmRSS" {
			rss = kb << 10
		} else {
			hwm = kb << 10
		}
	}
	if rss == 0 || hwm == 0 {
		return 0, 0, fmt.Errorf("/proc/%d/status has no VmRSS or VmHWM", pid)
	}
	return rss, hwm, sc.Err()
}

var heapInuseLine = regexp.MustCompile(`(?m)^# HeapInuse = ([0-9]+)$`)

// childHeapInuse is the child's HeapInuse after a GC, from its text heap profile (which ends
// with runtime.MemStats).
func childHeapInuse(ctx context.Context, env *environment, heapURL string) (int64, error) {
	var buf bytes.Buffer
	if err := fetch(ctx, env, heapURL+"?gc=1&debug=1", &buf); err != nil {
		return 0, fmt.Errorf("the service's heap: %w", err)
	}
	m := heapInuseLine.FindSubmatch(buf.Bytes())
	if m == nil {
		return 0, errors.New("the service's heap profile has no HeapInuse")
	}
	return strconv.ParseInt(string(m[1]), 10, 64)
}

func fetchTo(ctx context.Context, env *environment, u, path string) error {
	fh, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := fetch(ctx, env, u, fh); err != nil {
		fh.Close()
		return err
	}
	return fh.Close()
}

func fetch(ctx context.Context, env *environment, u string, w io.Writer) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := env.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %d", u, resp.StatusCode)
	}
	_, err = io.Copy(w, resp.Body)
	return err
}
