// Command load benchmarks the service against PostgreSQL itself: it drives coin distribute and
// deduct over HTTP against a running Rewards with N concurrent clients and, in the same run and on
// the same PostgreSQL, pgbench's simple-update workload (pgbench -N) with the same client counts,
// then prints throughput, p50/p99 latency, errors, the service/pgbench ratio and whether the goals
// are met. pgbench is the yardstick: it is what the database alone does with a comparable
// one-row-update transaction, so the ratio says how much the service's own overhead costs.
//
//	go run ./e2e/load -duration 10s -clients 8,32
//
// "go tool task bench" runs it with 8 and 32 clients; options go after "--", e.g.
// "go tool task bench -- -clients 8 -duration 30s", and -scenarios runs a comma list alone.
//
// With no -database-url it starts a private PostgreSQL (adapters/postgres/localpg) in a temporary directory; the
// service runs in this process on a free loopback port. Everything is stopped and removed at the
// end. It exits non-zero only for real failures (setup errors, failed requests), never because a
// goal was missed: it is a benchmark, not a test. The load generator, the service and
// PostgreSQL share the machine's CPUs, so the figures describe that machine, not a deployment.
//
// Each benchmark is a scenario (scenarios.go): a function measuring one workload at one client
// count. A new benchmark is one more function and one more entry in the scenarios list.
//
// # Money writes
//
// Distribute and deduct (each client its own player, plus distribute-hot where every client
// credits one player) are measured against pgbench -N; the purchases (purchase-coupon,
// purchase-giftcard) and partner WALLET orders (partner-wallet) against pgbench-tpcb. After the
// tables the bench prints the PostgreSQL round trips per request of each HTTP scenario (counted
// by a pgx tracer on the service's pool; the job queue's idle background, measured before the
// scenarios, taken out) and a "Money writes" section with each goal: distribute and deduct ≥ 65%
// of pgbench -N with p99 < 15 ms, the hot player ≥ 60% of distribute, coupon purchases ≥ 30% of
// tpcb-like, gift-card purchases and partner orders ≥ 25%, p99 < 40 ms; round trips ≤ 3
// (distribute), ≤ 6 (coupon), ≤ 8 (gift card, its fulfilment job's work included); and the
// resident memory of the process idle and after the distribute run. It also prints the CPU and
// the heap the process spent per request of each HTTP run, the figures to compare across runs on
// a shared machine.
//
// Between each HTTP scenario's warm-up and its measured run the bench takes the statistics of the
// service's database (ANALYZE), as autovacuum does within a minute in a running deployment and
// pgbench -i does for pgbench's tables: the bench's tables start empty, and the service's
// connections would otherwise keep plans made while they were.
//
// # The read path
//
// The catalogue scenarios run on a seeded 10,000-reward catalogue and, with rewards-list-100k
// (the catalogue grown to 100,000 rewards; run it last), at 100,000, beside healthz (GET
// /healthz, the HTTP stack's ceiling) and the read path's goals (readmodel.go). At each size it
// also starts the service alone in a child process (this binary with REWARDS_LOAD_SERVE_ONLY)
// and prints its time to the first list and its own resident memory (-service-heapprofile
// writes its heap profile). rewards-search-uncached searches more texts, in more orders, than a
// snapshot keeps, so each is ranked afresh. store-page measures a signed-in store list page
// against rewards-list (goal ≥ 50% of its throughput, p99 < 20 ms, the page with its CSS and
// script under 60 kB).
//
// The touchpoint scenarios run beside pgbench running the statements the endpoint runs (read
// from the sqlc code): touchpoints-serve (a placement served with a player token) with
// pgbench-serve, and touchpoints-tree (a 50-node tree with 10 STATIC rewards and 2 DYNAMIC
// nodes) with pgbench-tree; goals at 8 clients: p99 under 20 ms and at least 50% of pgbench's
// throughput. LOAD_TOUCH_PLANS=1 prints each statement's plan.
//
// # Webhooks
//
// The webhook scenarios (webhooks.go) run last, on a studio of their own with a webhook
// configuration pointing at a loopback receiver in this process: the distribute loops produce
// coin events, the service delivers them, and the receiver times each from the event's
// timestamp to its arrival; every 50th signature is checked with Stripe's verifier. webhooks
// reports deliveries per second and the p50/p99 delay (goal: at least 1,000/s, p99 under 1 s);
// webhooks-burst pauses the webhook queue
// while -webhook-burst events are produced, then resumes it and times the drain: the delivery
// capacity. Goals: at 8 clients webhooks at least half of distribute's rate, at 32 clients a
// delay p99 under 1 s, and each burst drained at 2,000/s or more. -webhook-workers compares
// values of REWARDS_WEBHOOK_WORKERS; -cpuprofile and -allocprofile profile the process (load
// generator and in-process service).
package main
