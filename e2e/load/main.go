package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rewardsco/rewards/app"
)

// Goals of the issue, checked at goalClients clients.
const (
	goalClients  = 8
	goalRatio    = 0.65 // distribute and deduct throughput at least 65% of pgbench -N's
	goalP99      = 15 * time.Millisecond
	goalScenario = "distribute"
	baseline     = "pgbench-N"
)

type options struct {
	duration    time.Duration
	warmup      time.Duration
	clients     []int
	databaseURL string
	scenarios   []string
	poolMax     int
	scale       int

	webhookBurst   int
	webhookDrain   time.Duration
	webhookWorkers int

	serviceHeapProfile string
	serviceEnv         []string
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
}

func run() error {
	if os.Getenv(childEnv) != "" {
		return serveChild() // measureService's child: the service alone (servicemem.go)
	}
	var opts options
	var clients, names string
	flag.DurationVar(&opts.duration, "duration", 10*time.Second, "measured time of each run")
	flag.DurationVar(&opts.warmup, "warmup", 2*time.Second, "unmeasured warm-up before each run")
	flag.StringVar(&clients, "clients", "8,32", "comma list of concurrent client counts")
	flag.StringVar(&opts.databaseURL, "database-url", "", "PostgreSQL to use instead of a private one (the service migrates it and "+
		"creates a benchmark studio in it; pgbench gets a database of its own on the same server, dropped at the end)")
	flag.StringVar(&names, "scenarios", strings.Join(scenarioNames(), ","), "comma list of scenarios to run")
	flag.IntVar(&opts.poolMax, "pool-max-conns", 0, "the service's pool size (pool_max_conns in its DATABASE_URL); 0 keeps "+
		"the service's default ("+strconv.Itoa(app.DefaultPoolSize)+")")
	flag.IntVar(&opts.scale, "pgbench-scale", 10, "pgbench -i scale factor")
	flag.IntVar(&opts.webhookBurst, "webhook-burst", 10_000, "events the webhooks-burst scenario produces")
	flag.DurationVar(&opts.webhookDrain, "webhook-drain", time.Minute, "how long the webhook scenarios wait, after production stops, "+
		"for the last deliveries")
	flag.IntVar(&opts.webhookWorkers, "webhook-workers", 0, "the service's REWARDS_WEBHOOK_WORKERS; 0 keeps its default (50)")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of this process (load generator and in-process service) to this file")
	allocProfile := flag.String("allocprofile", "", "write the allocation profile of this process (load generator and in-process service, "+
		"from its start: set-up included) to this file at the end")
	flag.StringVar(&opts.serviceHeapProfile, "service-heapprofile", "", "write the heap profile of the service alone (the child "+
		"process measureService starts at each catalogue size) to this prefix-<rewards>.pb.gz")
	serviceEnv := flag.String("service-env", "", "comma list of KEY=VALUE set for the service alone (its child process) only, "+
		"e.g. GOMEMLIMIT=180MiB,GOGC=50 to see what the runtime's settings do to its resident memory")
	flag.Parse()
	for _, kv := range strings.Split(*serviceEnv, ",") {
		if kv = strings.TrimSpace(kv); kv == "" {
			continue
		}
		if !strings.Contains(kv, "=") {
			return fmt.Errorf("-service-env: %q is not KEY=VALUE", kv)
		}
		opts.serviceEnv = append(opts.serviceEnv, kv)
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if *allocProfile != "" {
		defer func() {
			if err := writeAllocProfile(*allocProfile); err != nil {
				fmt.Fprintln(os.Stderr, "allocation profile:", err)
			}
		}()
	}
	for _, s := range strings.Split(clients, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return fmt.Errorf("-clients: %q is not a positive whole number", s)
		}
		opts.clients = append(opts.clients, n)
	}
	for _, s := range strings.Split(names, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		if _, ok := findScenario(s); !ok {
			return fmt.Errorf("-scenarios: unknown %q (known: %s)", s, strings.Join(scenarioNames(), ", "))
		}
		opts.scenarios = append(opts.scenarios, s)
	}
	if opts.duration <= 0 || opts.warmup < 0 {
		return errors.New("-duration must be positive and -warmup not negative")
	}
	if opts.webhookBurst < 1 || opts.webhookDrain <= 0 || opts.webhookWorkers < 0 || opts.webhookWorkers > 1000 {
		return errors.New("-webhook-burst and -webhook-drain must be positive, -webhook-workers from 0 to 1000")
	}

	// Ctrl-C still stops the service and PostgreSQL and removes the temporary directories.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	env, err := start(ctx, opts)
	if err != nil {
		return err
	}
	defer env.close()

	fmt.Printf("Load benchmark: %s per run after %s warm-up; clients %s; scenarios %s\n",
		opts.duration, opts.warmup, clients, strings.Join(opts.scenarios, ", "))
	fmt.Printf("Machine: %d CPUs, shared by the load generator, the service and PostgreSQL (numbers are for this box, not a capacity estimate)\n",
		runtime.NumCPU())
	fmt.Printf("Service pool: %s\n", env.poolDescription())
	fmt.Printf("Webhook workers: %s\n", env.workersDescription())
	for _, name := range opts.scenarios {
		sc, _ := findScenario(name)
		fmt.Printf("  %-15s %s\n", sc.name, sc.about)
	}
	fmt.Println()

	var results []result
	mem := memory{idle: rss()}
	background = idleRoundTrips(2 * time.Second)
	for _, name := range opts.scenarios {
		sc, _ := findScenario(name)
		for _, c := range opts.clients {
			fmt.Fprintf(os.Stderr, "running %s with %d clients…\n", sc.name, c)
			r, err := sc.run(ctx, env, c)
			if err != nil {
				if ctx.Err() != nil {
					return errors.New("interrupted")
				}
				return fmt.Errorf("%s with %d clients: %w", sc.name, c, err)
			}
			r.scenario, r.clients = sc.name, c
			if r.errors > 0 {
				fmt.Fprintf(os.Stderr, "!!! %s with %d clients: %d FAILED REQUESTS (%s)\n", sc.name, c, r.errors, r.errorSample)
			}
			results = append(results, r)
			if sc.name == goalScenario && c == goalClients {
				mem.underLoad = rss()
			}
		}
	}
	failed := report(os.Stdout, results, opts)
	reportRoundTrips(os.Stdout, results)
	reportCPU(os.Stdout, results)
	reportMoneyWrites(os.Stdout, results, mem)
	reportReadModel(os.Stdout, results)
	reportStorePage(os.Stdout, results)
	if failed > 0 {
		return fmt.Errorf("%d run(s) had failed requests: their numbers are not trustworthy", failed)
	}
	return nil
}
