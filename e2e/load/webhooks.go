package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/stripe/stripe-go/v76/webhook"

	"github.com/rewardsco/rewards/adapters/jobs"
)

// Goals of the webhook issue, checked on every webhook run.
const (
	goalDeliveries = 1000.0      // deliveries per second
	goalDelayP99   = time.Second // coin change → receiver 2xx
)

// Reasons of the distributes the webhook scenarios make: the receiver tells the measured events
// from the warm-up's by the reason in the delivered body.
const (
	reasonWarmup   = "LOAD_WEBHOOK_WARMUP"
	reasonMeasured = "LOAD_WEBHOOK"
)

// hookStats is what a webhook run measured, on top of the producing requests in result.
type hookStats struct {
	mode        string
	produced    int           // distributes answered 201 in the measured phase
	produceTime time.Duration // from the first measured request to the last answer
	delivered   int           // distinct measured events received
	duplicates  int           // receipts of an event already received (warm-up included)
	undelivered int           // produced − delivered when the drain bound ran out
	rate        float64       // delivered ÷ (last receipt − first event's timestamp)
	p50, p99    time.Duration // delay: receipt − event timestamp
	max         time.Duration
	drain       time.Duration // last receipt − end of production (burst: − the queue's resumption)
	maxBacklog  int64         // most River webhook jobs available or running at one sample
	sigChecked  int
	sigFailed   int
	badBodies   int
	cpu         cpuShare
}

// webhookSteady produces events with clients distribute loops for the run duration (after a
// warm-up whose events are delivered too, so the queue is in its steady state) and measures
// their delivery.
func webhookSteady(ctx context.Context, env *environment, clients int) (result, error) {
	return webhookRun(ctx, env, clients, false)
}

// webhookBurst produces -webhook-burst events as fast as clients distribute loops can, on a
// queue drained of the warm-up and paused meanwhile, then resumes it and measures how fast the
// backlog is delivered: the service's delivery capacity, whatever the distribute rate.
func webhookBurst(ctx context.Context, env *environment, clients int) (result, error) {
	return webhookRun(ctx, env, clients, true)
}

func webhookRun(ctx context.Context, env *environment, clients int, burst bool) (result, error) {
	h, err := env.newHookedGame(ctx, clients)
	if err != nil {
		return result{}, err
	}
	defer h.close()
	do := h.distribute(reasonWarmup)
	if env.opts.warmup > 0 {
		w := loop(ctx, clients, env.opts.warmup, do)
		if burst {
			// The burst starts on an empty queue.
			h.rcv.waitFor(ctx, reasonWarmup, w.ok, time.Now().Add(env.opts.webhookDrain))
		}
	}
	// Settled once the burst's warm-up deliveries are in (hence not warmUp).
	if err := env.settle(ctx); err != nil {
		return result{}, err
	}

	backlog := h.watchBacklog(ctx)
	cpu0 := readCPU()
	do = h.distribute(reasonMeasured)
	var r result
	var from time.Time // when delivery could start: zero means at the first event
	if burst {
		// The queue is paused while the burst is produced, so that the drain measures delivery
		// alone, not the distributes feeding it.
		if err := env.pauseWebhooks(ctx); err != nil {
			return result{}, err
		}
		r = loopN(ctx, clients, env.opts.webhookBurst, do)
		cpu0 = readCPU() // the drain's CPU, not the production's
		if err := env.resumeWebhooks(); err != nil {
			return result{}, err
		}
		from = time.Now()
	} else {
		r = loop(ctx, clients, env.opts.duration, do)
	}
	producedAt := time.Now()
	if err := ctx.Err(); err != nil {
		return result{}, err
	}
	h.rcv.waitFor(ctx, reasonMeasured, r.ok, producedAt.Add(env.opts.webhookDrain))
	maxBacklog := backlog()
	st := h.rcv.stats(reasonMeasured, from)
	st.cpu = readCPU().since(cpu0)
	st.mode, st.produced, st.produceTime, st.maxBacklog = "steady", r.ok, r.elapsed, maxBacklog
	if burst {
		st.mode = "burst"
	}
	st.undelivered = max(0, st.produced-st.delivered)
	if !st.last.IsZero() {
		st.drain = max(0, st.last.Sub(producedAt))
	}
	if st.sigFailed > 0 || st.badBodies > 0 {
		r.errors += st.sigFailed + st.badBodies
		r.errorSample = fmt.Sprintf("%d deliveries failed signature verification, %d had unreadable bodies", st.sigFailed, st.badBodies)
	}
	r.hook = &st.hookStats
	return r, ctx.Err()
}

// loopN is loop for a fixed number of requests instead of a duration: clients loops share n
// tickets. The throughput is over the wall time of all n.
func loopN(ctx context.Context, clients, n int, do request) result {
	var next atomic.Int64
	return runClients(ctx, clients, do, func() bool { return next.Add(1) <= int64(n) })
}

// hookedGame is a studio of its own (so the other scenarios stay without a webhook
// configuration), its game, coin and players, a loopback receiver and the configuration
// pointing at it.
type hookedGame struct {
	env      *environment
	key      string
	coinID   string
	tokens   []string
	configID string
	rcv      *receiver
}

func (env *environment) newHookedGame(ctx context.Context, players int) (_ *hookedGame, err error) {
	h := &hookedGame{env: env}
	defer func() {
		if err != nil {
			h.close()
		}
	}()
	if h.key, h.coinID, err = env.newGame(ctx, "Load Benchmark Webhooks"); err != nil {
		return nil, err
	}
	if h.tokens, err = env.newPlayers(ctx, h.key, players); err != nil {
		return nil, err
	}
	if h.rcv, err = startReceiver(); err != nil {
		return nil, err
	}
	var cfg struct {
		Data struct {
			ID            string
			SigningSecret string `json:"signingSecret"`
		}
	}
	if err = env.call(ctx, "/studio-webhooks/configure", map[string]string{"x-api-key": h.key}, map[string]any{
		"webhookUrl":       h.rcv.url,
		"subscribedEvents": []string{"COINS_CREDITED", "COINS_DEBITED", "COINS_REFUNDED"},
		// The host decides: the benchmark calls 127.0.0.1, a development host, with the test key.
		"environment": "DEVELOPMENT",
	}, http.StatusCreated, &cfg); err != nil {
		return nil, err
	}
	h.configID, h.rcv.secret = cfg.Data.ID, cfg.Data.SigningSecret
	return h, nil
}

// close deletes the configuration, which drops deliveries still queued, and stops the receiver.
func (h *hookedGame) close() {
	if h.configID != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		req, err := http.NewRequestWithContext(ctx, http.MethodDelete, h.env.baseURL+"/studio-webhooks/config/"+h.configID, nil)
		if err == nil {
			req.Header.Set("x-api-key", h.key)
			if resp, err := h.env.client.Do(req); err != nil {
				fmt.Fprintln(os.Stderr, "load: delete webhook configuration:", err)
			} else {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}
		cancel()
	}
	if h.rcv != nil {
		h.rcv.close()
	}
}

// distribute is a request crediting 1 coin with reason to the client's own player.
func (h *hookedGame) distribute(reason string) request {
	path := h.env.baseURL + "/coins/" + h.coinID + "/distribute"
	body := []byte(`{"amount":1,"reason":"` + reason + `"}`)
	return func(ctx context.Context, client int) (int, []byte, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, path, bytes.NewReader(body))
		if err != nil {
			return 0, nil, err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("x-api-key", h.key)
		req.Header.Set("Authorization", "Bearer "+h.tokens[client])
		resp, err := h.env.client.Do(req)
		if err != nil {
			return 0, nil, err
		}
		defer resp.Body.Close()
		var sample []byte
		if resp.StatusCode != http.StatusCreated {
			sample, _ = io.ReadAll(io.LimitReader(resp.Body, 300))
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.StatusCode, sample, nil
	}
}

// watchBacklog samples, every 100 ms on a connection of its own, how many webhook jobs are
// available or running in River's table; the returned function stops it and gives the most.
func (h *hookedGame) watchBacklog(ctx context.Context) func() int64 {
	ctx, cancel := context.WithCancel(ctx)
	var most atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		conn, err := pgx.Connect(ctx, h.env.dbURL)
		if err != nil {
			most.Store(-1)
			return
		}
		defer conn.Close(context.WithoutCancel(ctx))
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			var n int64
			if err := conn.QueryRow(ctx, `SELECT count(*) FROM webhook_deliveries WHERE status IN ('PENDING', 'RETRYING')`).Scan(&n); err == nil {
				most.Store(max(most.Load(), n))
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return func() int64 {
		cancel()
		<-done
		return most.Load()
	}
}

// receiver is the studio's endpoint on loopback: it answers 204 at once and notes when each
// event first arrived.
type receiver struct {
	url    string
	srv    *http.Server
	secret string // set before any event can arrive

	mu         sync.Mutex
	seen       map[string]receipt
	count      map[string]int // distinct events per reason
	duplicates int
	badBodies  int
	sigChecked int
	sigFailed  int
	sigSample  string
}

type receipt struct {
	at, stamp time.Time
	reason    string
}

// Every sigEvery-th new event's signature is checked with Stripe's verifier, as a studio would.
const sigEvery = 50

func startReceiver() (*receiver, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &receiver{url: "http://" + ln.Addr().String() + "/hook", seen: map[string]receipt{}, count: map[string]int{}}
	r.srv = &http.Server{Handler: r, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = r.srv.Serve(ln) }()
	return r, nil
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	at := time.Now()
	body, err := io.ReadAll(io.LimitReader(req.Body, 1<<20))
	var ev struct {
		EventID   string `json:"event_id"`
		Timestamp string `json:"timestamp"`
		Reason    string `json:"reason"`
	}
	var stamp time.Time
	if err == nil {
		err = json.Unmarshal(body, &ev)
	}
	if err == nil {
		stamp, err = time.Parse(time.RFC3339Nano, ev.Timestamp)
	}
	if err == nil && ev.EventID == "" {
		err = errors.New("no event_id")
	}
	// Answered 204 whatever came: a retry would only blur the numbers.
	w.WriteHeader(http.StatusNoContent)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		r.badBodies++
		return
	}
	if _, dup := r.seen[ev.EventID]; dup {
		r.duplicates++
		return
	}
	r.seen[ev.EventID] = receipt{at: at, stamp: stamp, reason: ev.Reason}
	r.count[ev.Reason]++
	if len(r.seen)%sigEvery == 1 {
		r.sigChecked++
		if err := webhook.ValidatePayload(body, req.Header.Get("X-Service-Signature"), r.secret); err != nil {
			r.sigFailed++
			r.sigSample = err.Error()
		}
	}
}

// waitFor waits until want distinct events of reason have arrived, or deadline.
func (r *receiver) waitFor(ctx context.Context, reason string, want int, deadline time.Time) {
	for ctx.Err() == nil && time.Now().Before(deadline) {
		r.mu.Lock()
		n := r.count[reason]
		r.mu.Unlock()
		if n >= want {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

type receiverStats struct {
	hookStats
	last time.Time
}

// stats are the delays and the rate of the events of reason received so far: the rate over
// from (or, when zero, the first event's timestamp) to the last receipt.
func (r *receiver) stats(reason string, from time.Time) receiverStats {
	r.mu.Lock()
	defer r.mu.Unlock()
	var st receiverStats
	var first time.Time
	var delays []time.Duration
	for _, rc := range r.seen {
		if rc.reason != reason {
			continue
		}
		delays = append(delays, rc.at.Sub(rc.stamp))
		if first.IsZero() || rc.stamp.Before(first) {
			first = rc.stamp
		}
		if rc.at.After(st.last) {
			st.last = rc.at
		}
	}
	st.delivered = len(delays)
	st.duplicates, st.badBodies, st.sigChecked, st.sigFailed = r.duplicates, r.badBodies, r.sigChecked, r.sigFailed
	if st.sigFailed > 0 {
		fmt.Fprintln(os.Stderr, "load: webhook signature check failed:", r.sigSample)
	}
	if len(delays) > 0 {
		st.p50, st.p99 = percentiles(delays)
		st.max = slices.Max(delays)
		if from.IsZero() {
			from = first
		}
		if span := st.last.Sub(from); span > 0 {
			st.rate = float64(len(delays)) / span.Seconds()
		}
	}
	return st
}

func (r *receiver) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = r.srv.Shutdown(ctx)
}

// cpuShare is how busy the machine's CPUs were, in percent of all of them: in all, and by this
// process (the service, the load generator and the receiver); the rest is mostly PostgreSQL.
type cpuShare struct {
	busy, self float64
	ok         bool
}

type cpuSample struct {
	at        time.Time
	busy, all uint64 // jiffies over all CPUs, /proc/stat
	self      uint64 // this process's utime+stime, /proc/self/stat
	ok        bool
}

func readCPU() cpuSample {
	s := cpuSample{at: time.Now()}
	stat, err := os.ReadFile("/proc/stat")
	if err != nil {
		return s
	}
	line, _, _ := strings.Cut(string(stat), "\n")
	fields := strings.Fields(line)
	if len(fields) < 8 || fields[0] != "cpu" {
		return s
	}
	for i, f := range fields[1:] {
		v, _ := strconv.ParseUint(f, 10, 64)
		s.all += v
		if i != 3 && i != 4 { // idle, iowait
			s.busy += v
		}
	}
	self, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return s
	}
	// Fields after the command name (which may hold spaces) in parentheses; utime and stime are
	// the 14th and 15th of the line.
	rest := string(self)
	if i := strings.LastIndexByte(rest, ')'); i >= 0 {
		rest = rest[i+1:]
	}
	f := strings.Fields(rest)
	if len(f) < 13 {
		return s
	}
	ut, _ := strconv.ParseUint(f[11], 10, 64)
	st, _ := strconv.ParseUint(f[12], 10, 64)
	s.self = ut + st
	s.ok = true
	return s
}

func (s cpuSample) since(start cpuSample) cpuShare {
	if !s.ok || !start.ok || s.all <= start.all {
		return cpuShare{}
	}
	all := float64(s.all - start.all)
	return cpuShare{busy: 100 * float64(s.busy-start.busy) / all, self: 100 * float64(s.self-start.self) / all, ok: true}
}

// pauseWebhooks pauses River's webhook queue through a client of this program's own (insert-only:
// it works no jobs); the service's workers hear of it by notification within milliseconds.
func (env *environment) pauseWebhooks(ctx context.Context) error {
	if env.river == nil {
		pool, err := pgxpool.New(ctx, env.dbURL)
		if err != nil {
			return err
		}
		c, err := river.NewClient(riverpgxv5.New(pool), &river.Config{Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			pool.Close()
			return err
		}
		env.river, env.riverPool = c, pool
	}
	if err := env.river.QueuePause(ctx, jobs.QueueWebhooks, nil); err != nil {
		return fmt.Errorf("pause the webhook queue: %w", err)
	}
	env.webhooksPaused = true
	return nil
}

// resumeWebhooks undoes pauseWebhooks; close calls it too, should a run stop half-way.
func (env *environment) resumeWebhooks() error {
	if !env.webhooksPaused {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := env.river.QueueResume(ctx, jobs.QueueWebhooks, nil); err != nil {
		return fmt.Errorf("resume the webhook queue: %w", err)
	}
	env.webhooksPaused = false
	return nil
}
