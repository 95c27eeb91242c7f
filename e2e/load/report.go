package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rewardsco/rewards/adapters/postgres"
)

// result is one scenario at one client count.
type result struct {
	scenario    string
	clients     int
	ok          int // successful requests or transactions
	errors      int
	errorSample string
	elapsed     time.Duration
	throughput  float64 // successful per second
	p50, p99    time.Duration
	p95         time.Duration // printed for the rewards store runs
	mean        time.Duration // pgbench's own latency average, for cross-checking the log
	hook        *hookStats    // webhook scenarios: delivery figures (the fields above are the producing distributes)
	store       *storeStats   // rewards store scenarios (catalogue.go): compared with their own pgbench runs
	order       *orderStats   // purchase scenarios (orders.go): compared with pgbench-tpcb
	// roundTrips is how many round trips the service's pool made to PostgreSQL during the run
	// (HTTP scenarios; the job queue's background work included).
	roundTrips int64
	// cpu is the CPU time this process (the service and the load generator) spent during the run
	// (HTTP scenarios).
	cpu time.Duration
	// allocs is the heap this process (the service and the load generator) allocated during
	// the run (HTTP scenarios): work for the garbage collector.
	allocs allocCount
}

// background is the service's round trips per second when no request comes (the job queue's
// polling, periodic purges), measured before the scenarios and taken out of their counts.
var background float64

// idleRoundTrips measures background over d.
func idleRoundTrips(d time.Duration) float64 {
	before := postgres.RoundTrips()
	time.Sleep(d)
	return float64(postgres.RoundTrips()-before) / d.Seconds()
}

// tripsPerRequest is a run's round trips per request, the background's share of its time taken
// out (work its requests caused later, such as fulfilment jobs, stays in).
func tripsPerRequest(r result) float64 {
	n := r.ok + r.errors
	if n == 0 || r.roundTrips == 0 {
		return 0
	}
	return max(0, float64(r.roundTrips)-background*r.elapsed.Seconds()) / float64(n)
}

// reportRoundTrips prints the service's PostgreSQL round trips per request of each HTTP run.
func reportRoundTrips(w io.Writer, results []result) {
	var parts []string
	for _, r := range results {
		if x := tripsPerRequest(r); x > 0 {
			parts = append(parts, fmt.Sprintf("%s@%d %.1f", r.scenario, r.clients, x))
		}
	}
	if len(parts) > 0 {
		fmt.Fprintf(w, "\nPostgreSQL round trips per request (statements, batches and prepares of the service's pool; the idle background of %.1f/s taken out): %s\n",
			background, strings.Join(parts, ", "))
	}
}

// report prints the table, the ratios to pgbench and the goals; it returns how many runs had
// failed requests.
func report(w io.Writer, results []result, opts options) (failed int) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "scenario\tclients\tthroughput/s\tp50\tp99\tok\terrors\t")
	for _, r := range results {
		errs := fmt.Sprint(r.errors)
		if r.errors > 0 {
			errs += " !!!"
			failed++
		}
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%s\t%s\t%d\t%s\t\n", r.scenario, r.clients, r.throughput, ms(r.p50), ms(r.p99), r.ok, errs)
	}
	tw.Flush()

	find := func(name string, clients int) (result, bool) {
		for _, r := range results {
			if r.scenario == name && r.clients == clients {
				return r, true
			}
		}
		return result{}, false
	}
	fmt.Fprintln(w)
	for _, c := range opts.clients {
		base, ok := find(baseline, c)
		if !ok || base.throughput == 0 {
			continue
		}
		var parts []string
		for _, r := range results {
			if r.clients == c && r.scenario != baseline && r.hook == nil && r.store == nil && r.order == nil {
				parts = append(parts, fmt.Sprintf("%s %.0f%%", r.scenario, 100*r.throughput/base.throughput))
			}
		}
		if len(parts) > 0 {
			fmt.Fprintf(w, "ratio to pgbench -N at %d clients: %s\n", c, strings.Join(parts, ", "))
		}
	}

	dist, okD := find(goalScenario, goalClients)
	base, okB := find(baseline, goalClients)
	noCoinMoves := !slices.ContainsFunc(results, func(r result) bool { return r.hook == nil && r.store == nil && r.order == nil })
	if !noCoinMoves {
		fmt.Fprintln(w)
	}
	switch {
	case noCoinMoves: // only webhook, rewards store or purchase runs: their goals follow
	case !okD || !okB:
		fmt.Fprintf(w, "Goals not evaluated: they need %s and %s at %d clients in the run.\n", goalScenario, baseline, goalClients)
	default:
		ratio := 0.0
		if base.throughput > 0 {
			ratio = dist.throughput / base.throughput
		}
		fmt.Fprintf(w, "Goal at %d clients: distribute ≥ %.0f%% of pgbench -N: %.0f%% — %s\n",
			goalClients, 100*goalRatio, 100*ratio, verdict(ratio >= goalRatio))
		fmt.Fprintf(w, "Goal at %d clients: distribute p99 < %s: %s — %s\n",
			goalClients, ms(goalP99), ms(dist.p99), verdict(dist.p99 < goalP99))
	}
	reportStore(w, results)
	reportTouchpoints(w, results)
	reportOrders(w, results)
	reportWebhooks(w, results)
	if failed > 0 {
		fmt.Fprintf(w, "\n!!! %d RUN(S) HAD FAILED REQUESTS (marked !!!): their numbers are not trustworthy.\n", failed)
	}
	return failed
}

// reportWebhooks prints the delivery table of the webhook runs and their goals.
func reportWebhooks(w io.Writer, results []result) {
	var hooked []result
	for _, r := range results {
		if r.hook != nil {
			hooked = append(hooked, r)
		}
	}
	if len(hooked) == 0 {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Webhook delivery (own studio, loopback receiver):")
	fmt.Fprintln(w, "  delay         event timestamp → the receiver has it (burst: includes the time the queue was paused)")
	fmt.Fprintln(w, "  deliveries/s  delivered ÷ (first event's timestamp → last receipt); burst: ÷ (queue resumed → last receipt) = drain")
	fmt.Fprintln(w, "  max backlog   most webhook deliveries pending (the outbox) at one 100 ms sample")
	fmt.Fprintln(w, "  CPU busy      % of all CPUs from production start (burst: from the resumption) until drained; in brackets")
	fmt.Fprintln(w, "                this process's share (service, load generator, receiver), the rest being mostly PostgreSQL")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "scenario\tclients\tproduced\tproduced/s\tdelivered\tmissing\tdups\tdeliveries/s\tdelay p50\tdelay p99\tdelay max\tdrain\tmax backlog\tCPU busy (this process)\tsignatures\t")
	for _, r := range hooked {
		h := r.hook
		cpu := "n/a"
		if h.cpu.ok {
			cpu = fmt.Sprintf("%.0f%% (%.0f%%)", h.cpu.busy, h.cpu.self)
		}
		missing := fmt.Sprint(h.undelivered)
		if h.undelivered > 0 {
			missing += " !!!"
		}
		sigs := fmt.Sprintf("%d ok", h.sigChecked-h.sigFailed)
		if h.sigFailed > 0 {
			sigs += fmt.Sprintf(", %d BAD !!!", h.sigFailed)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.0f\t%d\t%s\t%d\t%.0f\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t\n",
			r.scenario, r.clients, h.produced, float64(h.produced)/h.produceTime.Seconds(), h.delivered, missing, h.duplicates,
			h.rate, ms(h.p50), ms(h.p99), ms(h.max), ms(h.drain), h.maxBacklog, cpu, sigs)
	}
	tw.Flush()
	fmt.Fprintln(w)
	for _, r := range hooked {
		h := r.hook
		p99 := ms(h.p99)
		if h.undelivered > 0 {
			p99 = fmt.Sprintf("%s with %d never delivered", p99, h.undelivered)
		}
		if h.mode == "burst" {
			// The events waited in the paused queue: their delay is not the steady one.
			fmt.Fprintf(w, "Goal %s at %d clients: ≥ %.0f deliveries/s draining a %d-event backlog: %.0f in %s — %s\n",
				r.scenario, r.clients, goalDeliveries, h.produced, h.rate, ms(h.drain), verdict(h.rate >= goalDeliveries && h.undelivered == 0))
			continue
		}
		note := ""
		if h.rate < goalDeliveries {
			note = " (bounded by the distribute rate; webhooks-burst shows the delivery capacity)"
		}
		fmt.Fprintf(w, "Goal %s at %d clients: ≥ %.0f deliveries/s: %.0f — %s%s; delay p99 < %s: %s — %s\n",
			r.scenario, r.clients, goalDeliveries, h.rate, verdict(h.rate >= goalDeliveries && h.undelivered == 0), note,
			ms(goalDelayP99), p99, verdict(h.p99 < goalDelayP99 && h.undelivered == 0))
	}
	reportWebhookSpeed(w, results)
}

// The speed goals of a game that listens to its coins (issue 37): its distributes at least half
// as fast as without a webhook, at 8 clients; its deliveries' p99 delay under 1 s at 32 clients;
// a 10,000-event backlog drained at 2,000/s or more.
const (
	goalHookedShare = 0.5
	goalDrain       = 2000
)

// reportWebhookSpeed prints those goals for the runs that have their figures.
func reportWebhookSpeed(w io.Writer, results []result) {
	find := func(scenario string, clients int) (result, bool) {
		for _, r := range results {
			if r.scenario == scenario && r.clients == clients {
				return r, true
			}
		}
		return result{}, false
	}
	if plain, ok := find("distribute", 8); ok && plain.throughput > 0 {
		if hooked, ok := find("webhooks", 8); ok {
			share := hooked.throughput / plain.throughput
			fmt.Fprintf(w, "Goal at 8 clients: distribute with a webhook ≥ %.0f%% of distribute without: %.0f/s of %.0f/s = %.0f%% — %s\n",
				100*goalHookedShare, hooked.throughput, plain.throughput, 100*share, verdict(share >= goalHookedShare))
		}
	}
	if r, ok := find("webhooks", 32); ok && r.hook != nil {
		fmt.Fprintf(w, "Goal at 32 clients: delivery delay p99 < %s: %s — %s\n", ms(goalDelayP99), ms(r.hook.p99),
			verdict(r.hook.p99 < goalDelayP99 && r.hook.undelivered == 0))
	}
	for _, r := range results {
		if r.hook != nil && r.hook.mode == "burst" {
			fmt.Fprintf(w, "Goal %s at %d clients: drain ≥ %d deliveries/s: %.0f — %s\n", r.scenario, r.clients, goalDrain, r.hook.rate,
				verdict(r.hook.rate >= goalDrain && r.hook.undelivered == 0))
		}
	}
}

func verdict(met bool) string {
	if met {
		return "met"
	}
	return "NOT met"
}

func ms(d time.Duration) string {
	return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond))
}
