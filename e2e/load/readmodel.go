package main

// The catalogue's read model (core/catalogue ReadModel): the store's lists are served from
// memory. The figures the issue asks for beside the throughput: how long a load of the whole
// catalogue takes (what start-up waits for, and every instance after a change), how much heap
// a snapshot holds and the resident memory of this process (the service and the load
// generator), at the seeded 10,000 rewards and, with rewards-list-100k, at 100,000; beside
// them the service's own start-up and resident memory, measured on it alone in a child process
// (servicemem.go), which the memory goal is about. And
// GET /healthz in the same run: the HTTP stack's ceiling on this machine, which the list's
// goal is a share of.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/rewardsco/rewards/adapters/postgres"
	"github.com/rewardsco/rewards/core/catalogue"
)

// The read path's goals at goalClients clients (issue: the store's read path at game scale).
const (
	healthzScenario = "healthz"
	scaleScenario   = "rewards-list-100k"
	scaleRewards    = 100_000

	goalListTimes    = 20   // rewards-list at least 20× pgbench-list
	goalListHealthz  = 0.25 // and at least 25% of GET /healthz
	goalSearchTimes  = 10   // each search at least 10× its pgbench
	goalStoreP       = 15 * time.Millisecond
	goalScaleRSS     = 200 << 20
	goalChange       = time.Second // a change committed on another instance served within it
	goalScaleStartup = 5 * time.Second
)

// snapshotFigures is one measured load of the read model.
type snapshotFigures struct {
	rewards int
	took    time.Duration
	heap    int64           // heap the snapshot holds
	rss     int64           // this process's resident set just after
	service *serviceFigures // the service alone, in a child process (servicemem.go)
}

// snapshots are the loads measured in this run, by catalogue size.
var snapshots []snapshotFigures

// measureSnapshot loads the catalogue into a read model of this process, as an instance does at
// start-up, and measures the time and the heap it takes.
func measureSnapshot(ctx context.Context, env *environment) (snapshotFigures, error) {
	pool, err := pgxpool.New(ctx, env.dbURL)
	if err != nil {
		return snapshotFigures{}, err
	}
	defer pool.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	reads := catalogue.NewReadModel(postgres.NewCatalogueSnapshots(postgres.NewDB(pool)), nil)
	start := time.Now()
	if err := reads.Refresh(ctx); err != nil {
		return snapshotFigures{}, err
	}
	took := time.Since(start)
	snap, err := reads.Current(ctx)
	if err != nil {
		return snapshotFigures{}, err
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	f := snapshotFigures{rewards: snap.Rewards(), took: took, heap: int64(after.HeapAlloc) - int64(before.HeapAlloc), rss: rss()}
	runtime.KeepAlive(reads)
	want := int64(1)
	if f.rewards >= scaleRewards*9/10 {
		want = storeRewards + 1 // the grown catalogue, not the seeded one
	}
	if f.service, err = measureService(ctx, env, want); err != nil {
		return snapshotFigures{}, err
	}
	snapshots = append(snapshots, f)
	return f, nil
}

// healthz drives GET /healthz: no database, no authentication, the HTTP stack alone.
func healthz(ctx context.Context, env *environment, clients int) (result, error) {
	r, err := driveHTTP(ctx, env, clients, func(ctx context.Context, _ int) (int, []byte, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, env.baseURL+"/healthz", nil)
		if err != nil {
			return 0, nil, err
		}
		resp, err := env.client.Do(req)
		if err != nil {
			return 0, nil, err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK {
			return resp.StatusCode, body, err
		}
		return http.StatusCreated, nil, nil // what loop counts as a success
	})
	r.store = &storeStats{}
	return r, err
}

// rewardsList100k grows the seeded catalogue to 100,000 rewards (copies of the seeded ones,
// under the same brands), waits until the service serves it, measures a load of it (and the
// service alone on it), and runs rewards-list on it. The catalogue stays that large for the
// rest of the run: run it after the other store scenarios.
func rewardsList100k(ctx context.Context, env *environment, clients int) (result, error) {
	fx, err := env.storeFixture(ctx)
	if err != nil {
		return result{}, err
	}
	pool, err := pgxpool.New(ctx, env.dbURL)
	if err != nil {
		return result{}, err
	}
	defer pool.Close()
	var have int64
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM catalogue_rewards`).Scan(&have); err != nil {
		return result{}, err
	}
	if copies := (scaleRewards - have + have - 1) / have; copies > 0 { // at least scaleRewards in all
		fmt.Fprintf(os.Stderr, "growing the catalogue from %d to %d rewards…\n", have, have*(copies+1))
		if _, err := pool.Exec(ctx, `
			INSERT INTO catalogue_rewards (type, brand_code, name, description, campaign_title, campaign_sub_title,
			    campaign_details, terms_and_conditions, how_to_redeem, cover_image, assets, countries, end_date, is_active,
			    value_type, denominations, min_face, max_face, discount_bps, min_selling, max_selling, purchase_cooldown,
			    x_score, flag_allow_studio_edit_price, translations, search_name, search_body, created_at, updated_at)
			SELECT type, brand_code, name || ' ' || g, description, campaign_title, campaign_sub_title,
			    campaign_details, terms_and_conditions, how_to_redeem, cover_image, assets, countries, end_date, is_active,
			    value_type, denominations, min_face, max_face, discount_bps, min_selling, max_selling, purchase_cooldown,
			    x_score, flag_allow_studio_edit_price, translations, search_name || ' ' || g, search_body,
			    created_at - make_interval(secs => g), updated_at
			FROM catalogue_rewards, generate_series(1, $1::int) g`, copies); err != nil {
			return result{}, fmt.Errorf("grow the catalogue: %w", err)
		}
		if _, err := pool.Exec(ctx, `VACUUM ANALYZE catalogue_rewards`); err != nil {
			return result{}, err
		}
	}
	tokens, err := env.playerTokens(ctx, clients)
	if err != nil {
		return result{}, err
	}
	base := env.baseURL + "/rewards?coinId=" + url.QueryEscape(env.coinID) + "&limit=" + strconv.Itoa(storePageSize)
	// The service reloads on the triggers' notification; wait until it lists the grown catalogue.
	deadline := time.Now().Add(time.Minute)
	for {
		var page struct {
			Total int64 `json:"total"`
		}
		if _, _, err := env.storeGet(ctx, base, tokens[0], func(body []byte) error { return json.Unmarshal(body, &page) }); err != nil {
			return result{}, err
		}
		if page.Total > int64(storeRewards) {
			break
		}
		if time.Now().After(deadline) {
			return result{}, fmt.Errorf("the service did not serve the grown catalogue within a minute")
		}
		time.Sleep(100 * time.Millisecond)
	}
	// Measured once the service has reloaded, so that its reload does not compete with the
	// measured loads for the cores.
	if _, err := measureSnapshot(ctx, env); err != nil {
		return result{}, err
	}
	r, err := driveHTTP(ctx, env, clients, func(ctx context.Context, client int) (int, []byte, error) {
		c := fx.lists[rand.IntN(len(fx.lists))]
		return env.storeGet(ctx, base+"&contentLogic="+c.ord+"&page="+strconv.Itoa(c.page), tokens[client], func([]byte) error { return nil })
	})
	r.store = &storeStats{}
	return r, err
}

// reportReadModel prints the read model's figures and the read path's goals.
func reportReadModel(w io.Writer, results []result) {
	find := func(name string, clients int) (result, bool) {
		for _, r := range results {
			if r.scenario == name && r.clients == clients {
				return r, true
			}
		}
		return result{}, false
	}
	if len(snapshots) == 0 && !slices.ContainsFunc(results, func(r result) bool { return r.store != nil }) {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Read path at game scale (the catalogue in memory):")
	for _, f := range snapshots {
		fmt.Fprintf(w, "Read model: %d rewards loaded in %s, the snapshot holds %s of heap; this process's resident memory %s (the service and the load generator).\n",
			f.rewards, f.took.Round(time.Millisecond), mib(f.heap), mib(f.rss))
		if s := f.service; s != nil {
			if len(s.env) > 0 {
				fmt.Fprintf(w, "The service alone runs with %s (-service-env).\n", strings.Join(s.env, " "))
			}
			fmt.Fprintf(w, "The service alone (a child process on the same database, %d rewards listed): first list served %s after its start; "+
				"resident memory %s (peak %s, Go heap in use %s) after %d lists, %s (peak %s) after %s of rewards-list at %d clients (%d lists); "+
				"a reward renamed by SQL served %s after the commit (peak %s through that reload), one hidden for the game %s after.\n",
				s.rewards, s.firstList.Round(time.Millisecond), mib(s.rss), mib(s.hwm), mib(s.heap), s.lists,
				mib(s.loadRSS), mib(s.loadHWM), serviceLoad, serviceLoadClients, s.loadOK, s.change.Round(time.Millisecond), mib(s.reloadHWM),
				s.hide.Round(time.Millisecond))
		}
	}
	times := func(scenario, baseline string, want float64) {
		r, ok := find(scenario, goalClients)
		b, okB := find(baseline, goalClients)
		if !ok || !okB || b.throughput == 0 {
			return
		}
		x := r.throughput / b.throughput
		fmt.Fprintf(w, "Goal at %d clients: %s ≥ %.0f× %s: %.1f× — %s\n", goalClients, scenario, want, baseline, x, verdict(x >= want))
	}
	times(listScenario, listBaseline, goalListTimes)
	if r, ok := find(listScenario, goalClients); ok {
		if h, ok := find(healthzScenario, goalClients); ok && h.throughput > 0 {
			x := r.throughput / h.throughput
			fmt.Fprintf(w, "Goal at %d clients: %s ≥ %.0f%% of %s: %.0f%% — %s\n", goalClients, listScenario, 100*goalListHealthz, healthzScenario,
				100*x, verdict(x >= goalListHealthz))
		}
		fmt.Fprintf(w, "Goal at %d clients: %s p99 < %s: %s — %s\n", goalClients, listScenario, ms(goalStoreP), ms(r.p99), verdict(r.p99 < goalStoreP))
	}
	times(searchScenario, searchBaseline, goalSearchTimes)
	times(typoScenario, typoBaseline, goalSearchTimes)
	for _, s := range []string{searchScenario, typoScenario} {
		if r, ok := find(s, goalClients); ok {
			fmt.Fprintf(w, "Goal at %d clients: %s p95 < %s: %s — %s\n", goalClients, s, ms(goalStoreP), ms(r.p95), verdict(r.p95 < goalStoreP))
		}
	}
	if r, ok := find(treeScenario, goalClients); ok {
		fmt.Fprintf(w, "Goal at %d clients: %s p99 < %s: %s — %s\n", goalClients, treeScenario, ms(goalStoreP), ms(r.p99), verdict(r.p99 < goalStoreP))
	}
	if r, ok := find(scaleScenario, goalClients); ok {
		fmt.Fprintf(w, "Goal at %d clients: %s p99 < %s: %s — %s\n", goalClients, scaleScenario, ms(goalStoreP), ms(r.p99), verdict(r.p99 < goalStoreP))
	}
	for _, f := range snapshots {
		if f.rewards < scaleRewards*9/10 {
			continue
		}
		fmt.Fprintf(w, "Goal: %d rewards load in < %s: %s — %s\n", f.rewards, goalScaleStartup, f.took.Round(time.Millisecond), verdict(f.took < goalScaleStartup))
		fmt.Fprintf(w, "Goal: %d rewards fit in < %s of resident memory: %s — %s (this process: the service, the load generator and a second snapshot)\n",
			f.rewards, mib(goalScaleRSS), mib(f.rss), verdict(f.rss < goalScaleRSS))
		if s := f.service; s != nil {
			fmt.Fprintf(w, "Goal: %d rewards, the service alone starts and serves its first list in < %s: %s — %s\n",
				f.rewards, goalScaleStartup, s.firstList.Round(time.Millisecond), verdict(s.firstList < goalScaleStartup))
			fmt.Fprintf(w, "Goal: %d rewards, the service alone fits in < %s of resident memory: peak %s (now %s) — %s (VmHWM of the child process, start-up and %s of rewards-list included)\n",
				f.rewards, mib(goalScaleRSS), mib(s.loadHWM), mib(s.loadRSS), verdict(s.loadHWM < goalScaleRSS), serviceLoad)
			fmt.Fprintf(w, "Goal: %d rewards, a change committed elsewhere is served within %s: %s — %s (a reward renamed by SQL; the service alone's "+
				"peak through that reload %s: %s)\n", f.rewards, goalChange, s.change.Round(time.Millisecond), verdict(s.change < goalChange),
				mib(s.reloadHWM), verdict(s.reloadHWM < goalScaleRSS))
			fmt.Fprintf(w, "Goal: %d rewards, a game's hiding committed elsewhere is served within %s: %s — %s (loaded alone)\n",
				f.rewards, goalChange, s.hide.Round(time.Millisecond), verdict(s.hide < goalChange))
		}
	}
}
