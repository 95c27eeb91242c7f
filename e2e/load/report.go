package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
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
	mean        time.Duration // pgbench's own latency average, for cross-checking the log
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
			if r.clients == c && r.scenario != baseline {
				parts = append(parts, fmt.Sprintf("%s %.0f%%", r.scenario, 100*r.throughput/base.throughput))
			}
		}
		if len(parts) > 0 {
			fmt.Fprintf(w, "ratio to pgbench -N at %d clients: %s\n", c, strings.Join(parts, ", "))
		}
	}

	fmt.Fprintln(w)
	dist, okD := find(goalScenario, goalClients)
	base, okB := find(baseline, goalClients)
	if !okD || !okB {
		fmt.Fprintf(w, "Goals not evaluated: they need %s and %s at %d clients in the run.\n", goalScenario, baseline, goalClients)
	} else {
		ratio := 0.0
		if base.throughput > 0 {
			ratio = dist.throughput / base.throughput
		}
		fmt.Fprintf(w, "Goal at %d clients: distribute ≥ %.0f%% of pgbench -N: %.0f%% — %s\n",
			goalClients, 100*goalRatio, 100*ratio, verdict(ratio >= goalRatio))
		fmt.Fprintf(w, "Goal at %d clients: distribute p99 < %s: %s — %s\n",
			goalClients, ms(goalP99), ms(dist.p99), verdict(dist.p99 < goalP99))
	}
	if failed > 0 {
		fmt.Fprintf(w, "\n!!! %d RUN(S) HAD FAILED REQUESTS (marked !!!): their numbers are not trustworthy.\n", failed)
	}
	return failed
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
