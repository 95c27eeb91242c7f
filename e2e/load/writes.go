package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// The money-write goals beside the distribute and coupon ones (goalRatio, goalCouponRatio): throughput against pgbench in the same run, p99, round trips per
// request and memory, at goalClients clients.
const (
	goalHotRatio      = 0.60 // distribute-hot at least 60% of distribute
	goalGiftRatio     = 0.25 // gift-card purchases and partner WALLET orders, of tpcb-like
	goalTripsDist     = 3.0
	goalTripsCoupon   = 6.0
	goalTripsGiftCard = 8.0
	goalIdleRSS       = 100 << 20
	goalLoadRSS       = 300 << 20
)

// memory is the resident set of this process, which serves the service in-process beside the
// load generator: an upper bound of the service's own.
type memory struct{ idle, underLoad int64 }

// rss returns this process's resident set size in bytes (VmRSS), 0 where /proc is missing.
func rss() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}

func mib(b int64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }

// reportMoneyWrites prints the goals of money writes (coin movements, purchases, partner
// orders) that the run can evaluate: each against its yardstick in the same run, with its p99,
// its round trips per request, and the process's memory idle and after distribute.
func reportMoneyWrites(w io.Writer, results []result, mem memory) {
	find := func(name string) (result, bool) {
		for _, r := range results {
			if r.scenario == name && r.clients == goalClients {
				return r, true
			}
		}
		return result{}, false
	}
	trips := tripsPerRequest
	var lines []string
	goal := func(format string, args ...any) { lines = append(lines, fmt.Sprintf(format, args...)) }
	ratioGoal := func(name, base string, min float64) {
		r, ok := find(name)
		b, okB := find(base)
		if !ok || !okB || b.throughput == 0 {
			return
		}
		x := r.throughput / b.throughput
		goal("Goal at %d clients: %s ≥ %.0f%% of %s: %.0f%% — %s", goalClients, name, 100*min, base, 100*x, verdict(x >= min))
	}
	p99Goal := func(name string, max time.Duration) {
		if r, ok := find(name); ok {
			goal("Goal at %d clients: %s p99 < %s: %s — %s", goalClients, name, ms(max), ms(r.p99), verdict(r.p99 < max))
		}
	}
	tripsGoal := func(name string, max float64, note string) {
		if r, ok := find(name); ok && trips(r) > 0 {
			goal("Goal at %d clients: %s ≤ %.0f round trips per request%s: %.2f — %s", goalClients, name, max, note, trips(r), verdict(trips(r) <= max))
		}
	}
	ratioGoal("deduct", baseline, goalRatio)
	p99Goal("deduct", goalP99)
	ratioGoal("distribute-hot", goalScenario, goalHotRatio)
	// purchase-coupon's goals are with the purchases' table (reportOrders).
	ratioGoal(giftScenario, tpcbBaseline, goalGiftRatio)
	p99Goal(giftScenario, goalCouponP99)
	ratioGoal(partnerScenario, tpcbBaseline, goalGiftRatio)
	p99Goal(partnerScenario, goalCouponP99)
	tripsGoal(goalScenario, goalTripsDist, "")
	tripsGoal(couponScenario, goalTripsCoupon, "")
	tripsGoal(giftScenario, goalTripsGiftCard, " (the job queue's work for its orders included)")
	if mem.idle > 0 {
		goal("Goal: resident memory idle < %s: %s — %s (this process: the service and the load generator)", mib(goalIdleRSS), mib(mem.idle), verdict(mem.idle < goalIdleRSS))
	}
	if mem.underLoad > 0 {
		goal("Goal: resident memory at the end of %s at %d clients < %s: %s — %s (this process: the service and the load generator)",
			goalScenario, goalClients, mib(goalLoadRSS), mib(mem.underLoad), verdict(mem.underLoad < goalLoadRSS))
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintln(w, "\nMoney writes:")
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
}
