package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/rewardsco/rewards/adapters/postgres"
	"github.com/rewardsco/rewards/adapters/postgres/localpg"
)

// A scenario measures one workload at a given number of concurrent clients, warm-up included.
type scenario struct {
	name  string
	about string
	run   func(ctx context.Context, env *environment, clients int) (result, error)
}

// scenarios run in this order (a -scenarios list is run in its own order); add a benchmark by
// adding a function and an entry here.
var scenarios = []scenario{
	{"distribute", "POST /coins/{id}/distribute, each client its own player", distribute},
	{"deduct", "POST /coins/{id}/deduct, each client its own (pre-funded) player", deduct},
	{"distribute-hot", "POST /coins/{id}/distribute, every client the same player: one contended balance row", distributeHot},
	{baseline, "pgbench -N (simple update) on the same PostgreSQL", pgbenchSimpleUpdate},
	// The rewards store (catalogue.go), on a catalogue of 10,000 rewards seeded on first use.
	{listScenario, "GET /rewards: a page of 20 (page 1–5, any contentLogic) of a 10,000-reward catalogue", rewardsList},
	{listBaseline, "pgbench -M prepared running the statements GET /rewards ran before the read model (the baseline of today's statements), on the service's database", pgbenchList},
	{searchScenario, "GET /rewards/search: real words and 3–4-letter prefixes in rotation (full text)", rewardsSearch},
	{searchBaseline, "pgbench -M prepared running the statements GET /rewards/search runs for them, on the service's database", pgbenchSearch},
	{typoScenario, "GET /rewards/search: one-edit typos in rotation (full text finds nothing, then trigram similarity)", rewardsSearchTypo},
	{typoBaseline, "pgbench -M prepared running the statements GET /rewards/search runs for them, on the service's database", pgbenchSearchTypo},
	{storePageScenario, "GET /store/rewards?sort=&page= with a store session's cookie: the player's store's list page (HTML) of the same catalogue", storePage},
	{uncachedScenario, "GET /rewards/search: ~1,500 brand words and prefixes × 8 sortBys in turn, more than the read model keeps: every search ranked afresh", rewardsSearchUncached},
	// Touchpoints (touchpoints.go), on the same seeded catalogue.
	{serveScenario, "GET /v2/touchpoints/serve with a player token: a gift-card placement and its configured reward", touchpointsServe},
	{serveBaseline, "pgbench -M prepared running the statements GET /v2/touchpoints/serve runs", pgbenchServe},
	{treeScenario, "GET /touchpoints/name/{name}?coinId=: a 50-node tree, 10 STATIC rewards, 2 DYNAMIC nodes", touchpointsTree},
	{treeBaseline, "pgbench -M prepared running the statements GET /touchpoints/name/{name} ran before its rewards came from the read model (the baseline of today's statements)", pgbenchTree},
	// The read path's ceiling and scale (readmodel.go): GET /healthz, then rewards-list on a catalogue
	// grown to 100,000 rewards (it stays that large for the rest of the run).
	{healthzScenario, "GET /healthz: the HTTP stack alone, the ceiling the list's goal is a share of", healthz},
	{scaleScenario, "GET /rewards on the catalogue grown to 100,000 rewards (copies of the seeded ones); measures the read model's load", rewardsList100k},
	// Purchases (orders.go), on a studio of their own, beside pgbench's tpcb-like.
	{couponScenario, "POST /rewards/purchase of a COUPON (a code from its pool), each client its own player", purchaseCoupon},
	{giftScenario, "POST /rewards/purchase of a GIFT_CARD (fake voucher provider on loopback), each client its own player", purchaseGiftCard},
	{partnerScenario, "POST /partner/v1/gift-cards/orders: WALLET orders of an ordinary gift card (fake voucher provider on loopback), one partner, a clientOrderId each", partnerWallet},
	{tpcbBaseline, "pgbench -b tpcb-like (pgbench's built-in TPC-B-like transaction) on the same PostgreSQL", pgbenchTPCB},
	// Last, and on a studio of their own: the scenarios above run without a webhook configuration.
	{"webhooks", "distribute for the run with a webhook configured: coin change → loopback receiver 2xx, steady load", webhookSteady},
	{"webhooks-burst", "distribute -webhook-burst events as fast as possible with a webhook configured, then drain", webhookBurst},
}

func scenarioNames() []string {
	var names []string
	for _, s := range scenarios {
		names = append(names, s.name)
	}
	return names
}

func findScenario(name string) (scenario, bool) {
	for _, s := range scenarios {
		if s.name == name {
			return s, true
		}
	}
	return scenario{}, false
}

func distribute(ctx context.Context, env *environment, clients int) (result, error) {
	return coinMoves(ctx, env, clients, "distribute", false)
}

func deduct(ctx context.Context, env *environment, clients int) (result, error) {
	return coinMoves(ctx, env, clients, "deduct", false)
}

func distributeHot(ctx context.Context, env *environment, clients int) (result, error) {
	return coinMoves(ctx, env, clients, "distribute", true)
}

// coinMoves has each client move 1 coin in a loop; hot puts every client on the first player.
func coinMoves(ctx context.Context, env *environment, clients int, op string, hot bool) (result, error) {
	tokens, err := env.playerTokens(ctx, clients)
	if err != nil {
		return result{}, err
	}
	path := env.baseURL + "/coins/" + env.coinID + "/" + op
	body := []byte(`{"amount":1}`)
	return driveHTTP(ctx, env, clients, func(ctx context.Context, client int) (int, []byte, error) {
		tok := tokens[client]
		if hot {
			tok = tokens[0]
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, path, bytes.NewReader(body))
		if err != nil {
			return 0, nil, err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("x-api-key", env.testKey)
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := env.client.Do(req)
		if err != nil {
			return 0, nil, err
		}
		defer resp.Body.Close()
		var sample []byte
		if resp.StatusCode != http.StatusCreated {
			sample, _ = io.ReadAll(io.LimitReader(resp.Body, 300))
		}
		// Drained to the end, the connection goes back to the pool instead of being closed.
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.StatusCode, sample, nil
	})
}

// request does one request as client number client: its status (0 with a transport error) and,
// when it failed, a sample of the answer.
type request func(ctx context.Context, client int) (status int, sample []byte, err error)

// answerBuffers are the load generator's buffers for the answers it reads (storeGet, touchGet):
// the generator shares the process with the service, and reading each answer into a new slice
// was about half of what the process allocated on a 90 kB touchpoint tree, garbage that made
// the service's collector run as often again. A body given to a check is valid until it returns.
var answerBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// driveHTTP runs clients loops of do, first for the warm-up (not recorded), then for the
// measured duration, recording every request's latency. Only 201 counts as success.
func driveHTTP(ctx context.Context, env *environment, clients int, do request) (result, error) {
	if err := env.warmUp(ctx, clients, do); err != nil {
		return result{}, err
	}
	r := loop(ctx, clients, env.opts.duration, do)
	return r, ctx.Err()
}

// warmUp runs clients loops of do for the warm-up (none without one) and then settles the
// database: what every scenario does before its measured run.
func (env *environment) warmUp(ctx context.Context, clients int, do request) error {
	if env.opts.warmup > 0 {
		loop(ctx, clients, env.opts.warmup, do)
	}
	return env.settle(ctx)
}

// settle takes the statistics of the service's database (ANALYZE) between a scenario's warm-up
// and its measured run (warmUp), as autovacuum does within a minute in a running deployment and as
// pgbench -i does for pgbench's tables. The bench's tables start empty: a plan made while a table
// was nearly empty (a sequential scan of orders for each foreign-key check of its transitions and
// codes, say) would otherwise be kept by the service's connections while the warm-up fills the
// table, and the purchases' figures would say when autovacuum last ran rather than what they
// cost. ANALYZE's invalidations make those connections plan again.
func (env *environment) settle(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	conn, err := pgx.Connect(ctx, env.dbURL)
	if err != nil {
		return fmt.Errorf("settle: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "ANALYZE"); err != nil {
		return fmt.Errorf("settle: ANALYZE: %w", err)
	}
	return nil
}

func loop(ctx context.Context, clients int, d time.Duration, do request) result {
	deadline := time.Now().Add(d)
	return runClients(ctx, clients, do, func() bool { return time.Now().Before(deadline) })
}

// runClients runs clients request loops while ctx lives and more says so, and tallies latencies
// of 201 answers and everything else as errors. The wall time includes the requests still in
// flight at the end, so the rate is what was actually served.
func runClients(ctx context.Context, clients int, do request, more func() bool) result {
	type tally struct {
		lat    []time.Duration
		errs   int
		sample string
	}
	tallies := make([]tally, clients)
	var wg sync.WaitGroup
	trips := postgres.RoundTrips()
	cpu, allocs := processCPU(), heapAllocs()
	begin := time.Now()
	for c := range clients {
		wg.Go(func() {
			t := &tallies[c]
			t.lat = make([]time.Duration, 0, 4096)
			for ctx.Err() == nil && more() {
				start := time.Now()
				status, sample, err := do(ctx, c)
				elapsed := time.Since(start)
				switch {
				case err != nil:
					t.errs++
					t.sample = err.Error()
				case status != http.StatusCreated:
					t.errs++
					t.sample = fmt.Sprintf("%d %s", status, strings.TrimSpace(string(sample)))
				default:
					t.lat = append(t.lat, elapsed)
				}
			}
		})
	}
	wg.Wait()
	r := result{elapsed: time.Since(begin), roundTrips: postgres.RoundTrips() - trips, cpu: processCPU() - cpu,
		allocs: heapAllocs().sub(allocs)}
	var all []time.Duration
	for _, t := range tallies {
		all = append(all, t.lat...)
		r.errors += t.errs
		if t.sample != "" {
			r.errorSample = t.sample
		}
	}
	r.ok = len(all)
	r.throughput = float64(r.ok) / r.elapsed.Seconds()
	r.p50, r.p99 = percentiles(all)
	if len(all) > 0 {
		r.p95 = rank(all, 0.95) // percentiles sorted all
	}
	return r
}

// pgbenchSimpleUpdate runs pgbench -N (per transaction: update one pgbench_accounts row, select
// it, insert into pgbench_history) with the same client count, and reads its per-transaction
// log for p50/p99, which pgbench's summary does not give.
func pgbenchSimpleUpdate(ctx context.Context, env *environment, clients int) (result, error) {
	u, err := env.pgbenchDatabase(ctx)
	if err != nil {
		return result{}, err
	}
	return runPgbench(ctx, env, []string{"-n", "-N"}, clients, u)
}

// runPgbench runs pgbench with args and the client count against url: an unmeasured warm-up,
// then the measured run with its transaction log, read for the latencies. Two threads at most:
// there are few cores, and pgbench's client threads compete with the server for them just as
// the HTTP load generator does.
func runPgbench(ctx context.Context, env *environment, args []string, clients int, url string) (result, error) {
	args = append(slices.Clone(args), "-c", strconv.Itoa(clients), "-j", strconv.Itoa(min(clients, 2)))
	if env.opts.warmup > 0 {
		if out, err := pgbench(ctx, append(args, "-T", seconds(env.opts.warmup), url)...); err != nil {
			return result{}, fmt.Errorf("pgbench warm-up: %w\n%s", err, out)
		}
	}
	logDir, err := os.MkdirTemp(env.tmp, "pgbench-log-")
	if err != nil {
		return result{}, err
	}
	defer os.RemoveAll(logDir)
	prefix := filepath.Join(logDir, "tx")
	out, err := pgbench(ctx, append(args, "-T", seconds(env.opts.duration), "-l", "--log-prefix", prefix, url)...)
	if err != nil {
		return result{}, fmt.Errorf("pgbench: %w\n%s", err, out)
	}
	r, err := parsePgbench(out)
	if err != nil {
		return result{}, fmt.Errorf("%w\n%s", err, out)
	}
	lat, err := readPgbenchLogs(prefix)
	if err != nil {
		return result{}, err
	}
	r.p50, r.p99 = percentiles(lat)
	if len(lat) > 0 {
		r.p95 = rank(lat, 0.95) // percentiles sorted lat
	}
	r.elapsed = env.opts.duration
	return r, nil
}

// pgbench runs the pgbench next to the server binaries localpg uses, so its version matches.
func pgbench(ctx context.Context, args ...string) ([]byte, error) {
	bin := "pgbench"
	if dir, err := localpg.FindBinDir(); err == nil {
		if _, err := os.Stat(filepath.Join(dir, "pgbench")); err == nil {
			bin = filepath.Join(dir, "pgbench")
		}
	}
	return exec.CommandContext(ctx, bin, args...).CombinedOutput()
}

func seconds(d time.Duration) string {
	return strconv.Itoa(max(1, int(d.Round(time.Second)/time.Second)))
}

var (
	tpsLine     = regexp.MustCompile(`tps = ([0-9.]+) \(without initial connection time\)`)
	processed   = regexp.MustCompile(`number of transactions actually processed: ([0-9]+)`)
	failedLine  = regexp.MustCompile(`number of failed transactions: ([0-9]+)`)
	latencyLine = regexp.MustCompile(`latency average = ([0-9.]+) ms`)
)

func parsePgbench(out []byte) (result, error) {
	var r result
	m := tpsLine.FindSubmatch(out)
	if m == nil {
		return r, fmt.Errorf("no %q in pgbench's output", "tps = … (without initial connection time)")
	}
	r.throughput, _ = strconv.ParseFloat(string(m[1]), 64)
	if m := processed.FindSubmatch(out); m != nil {
		r.ok, _ = strconv.Atoi(string(m[1]))
	}
	if m := failedLine.FindSubmatch(out); m != nil {
		r.errors, _ = strconv.Atoi(string(m[1]))
		if r.errors > 0 {
			r.errorSample = "pgbench reported failed transactions"
		}
	}
	if m := latencyLine.FindSubmatch(out); m != nil {
		ms, _ := strconv.ParseFloat(string(m[1]), 64)
		r.mean = time.Duration(ms * float64(time.Millisecond))
	}
	return r, nil
}

// readPgbenchLogs reads the per-transaction logs (one file per thread, prefix.<pid>[.<thread>]);
// in each line "client_id transaction_no time script_no time_epoch time_us", time is the
// transaction's latency in microseconds.
func readPgbenchLogs(prefix string) ([]time.Duration, error) {
	files, err := filepath.Glob(prefix + ".*")
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("pgbench wrote no transaction log at %s.*", prefix)
	}
	var lat []time.Duration
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 3 {
				continue
			}
			us, err := strconv.ParseInt(fields[2], 10, 64)
			if err != nil {
				continue // "failed"/"skipped" transactions have no latency
			}
			lat = append(lat, time.Duration(us)*time.Microsecond)
		}
		fh.Close()
		if err := sc.Err(); err != nil {
			return nil, err
		}
	}
	return lat, nil
}

func percentiles(lat []time.Duration) (p50, p99 time.Duration) {
	if len(lat) == 0 {
		return 0, 0
	}
	slices.Sort(lat)
	return rank(lat, 0.50), rank(lat, 0.99)
}

// rank is the nearest-rank percentile of sorted.
func rank(sorted []time.Duration, q float64) time.Duration {
	i := int(q*float64(len(sorted))+0.999999) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}
