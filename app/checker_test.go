package app_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/jobs"
	"github.com/rewardsco/rewards/adapters/postgres"
	"github.com/rewardsco/rewards/adapters/postgres/pgtest"
	voucherhttp "github.com/rewardsco/rewards/adapters/vouchers"
	"github.com/rewardsco/rewards/app"
	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/idempotency"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/players"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/vouchers"
	fakevouchers "github.com/rewardsco/rewards/fakes/vouchers"
)

// The random-operations checker: workers run thousands of mixed coin movements and purchases
// concurrently over many players of one game while the fake voucher provider fails, answers 503
// and stalls at random moments; fulfilment jobs run as River would run them (from their row in
// river_job, at their scheduled time, snoozing as told, done once Fulfil says final). Then the
// database is checked against itself, against the provider and against what the workers saw.
//
// CHECKER_SEED=n replays the operation sequences of a logged seed (the interleaving differs).
const (
	chkWorkers      = 8
	chkPlayers      = 40
	chkOpsPerWorker = 260
	chkWait         = 200 * time.Millisecond
	chkPoll         = 100 * time.Millisecond
	chkDeadline     = 1200 * time.Millisecond
	chkSandboxDelay = 400 * time.Millisecond
)

// chkKind is what an item of the store is, for the checks.
type chkKind int

const (
	chkPool     chkKind = iota // coupon with a small pool of codes
	chkCooldown                // coupon with a pool and a one-hour cooldown
	chkShared                  // coupon with one shared code
	chkProvider                // gift card the voucher provider fulfils
)

type chkItem struct {
	name   string
	kind   chkKind
	reward uuid.UUID
	faces  []money.Amount // nil: the reward's only face
}

// chkOutcome is one call a worker made and what it got.
type chkOutcome struct {
	op       string // distribute, deduct, buy
	player   int
	item     int
	key      string // idempotency key, "" for none
	paired   bool   // sent twice at once with the same key
	amount   int64
	tx       coins.Transaction
	view     orders.View
	replayed bool
	err      error
}

type chkEnv struct {
	m       app.Modules
	pool    *pgxpool.Pool
	fake    *fakevouchers.Provider
	caller  studio.Caller
	coin    coins.Coin
	players []players.Player
	items   []chkItem
	poolSet map[string]uuid.UUID // pool code → its reward
}

func chkSetup(t *testing.T) *chkEnv {
	t.Helper()
	ctx := context.Background()
	e := &chkEnv{fake: fakevouchers.New(fakevouchers.WithSandboxDelay(chkSandboxDelay)), poolSet: map[string]uuid.UUID{}}
	mux := http.NewServeMux()
	e.fake.Register(mux)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	cfg, err := pgxpool.ParseConfig(pgtest.URL(t))
	require.NoError(t, err)
	cfg.MaxConns = 16 // as the service's pool would be, not pgx's default of 4 on this machine
	e.pool, err = pgxpool.NewWithConfig(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(e.pool.Close)
	e.m, err = app.NewModules(postgres.NewDB(e.pool), jobs.New(e.pool, jobs.Options{}), app.External{
		SecretKey: "checker-secret-key-checker-secret-key-01", PlayerTokenTTL: time.Hour, Currency: "INR",
		// The fake is both the live provider and the test environment's sandbox, for its
		// behaviour switches.
		Vouchers: voucherhttp.New(srv.URL+"/vouchers", ""), TestVouchers: voucherhttp.New(srv.URL+"/vouchers", ""),
		VoucherWait: chkWait, VoucherPoll: chkPoll, VoucherDeadline: chkDeadline,
	})
	require.NoError(t, err)
	_, err = e.m.Catalogue.Sync(ctx)
	require.NoError(t, err)
	s, err := e.m.Studios.CreateStudio(ctx, "Checker Studio")
	require.NoError(t, err)
	g, err := e.m.Studios.CreateGame(ctx, studio.Game{StudioID: s.ID, Name: "Checker Game"})
	require.NoError(t, err)
	e.caller = studio.Caller{GameID: g.ID, StudioID: s.ID, Environment: studio.Test}
	e.coin, err = e.m.Coins.CreateCoin(ctx, coins.Coin{GameID: g.ID, Name: "Stars", ImageURL: "https://cdn.example.com/s.png", CoinsPerUnit: 1})
	require.NoError(t, err)
	for i := range chkPlayers {
		p, err := e.m.Players.CreateWithUUID(ctx, e.caller, fmt.Sprintf("chk-%02d", i))
		require.NoError(t, err)
		e.players = append(e.players, p.Player)
	}

	// Coupons of our own: two small pools (OUT_OF_STOCK comes soon), one pool behind a cooldown,
	// one shared code.
	_, err = e.m.Catalogue.PutBrand(ctx, catalogue.Brand{Code: "CHECKER", Name: "Checker", IsActive: true})
	require.NoError(t, err)
	for i, c := range []struct {
		name     string
		kind     chkKind
		units    int64
		codes    int
		cooldown time.Duration
	}{{"pool-a", chkPool, 40, 12, 0}, {"pool-b", chkPool, 120, 25, 0}, {"cooldown", chkCooldown, 60, 60, time.Hour}, {"shared", chkShared, 30, 0, 0}} {
		n := catalogue.NewReward{Reward: catalogue.Reward{Type: catalogue.Coupon, BrandCode: "CHECKER", Name: "Checker " + c.name,
			IsActive: true, MRP: money.Amount(c.units * 100), SellingPrice: money.Amount(c.units * 100), PurchaseCooldown: c.cooldown}}
		if c.kind == chkShared {
			n.SharedCode = "SHARED-CHECKER-CODE"
		}
		r, err := e.m.Catalogue.CreateReward(ctx, n)
		require.NoError(t, err)
		if c.codes > 0 {
			list := make([]catalogue.Code, c.codes)
			for j := range list {
				list[j] = catalogue.Code{Code: fmt.Sprintf("POOL%d-%03d", i, j), Pin: strconv.Itoa(1000 + j)}
				e.poolSet[list[j].Code] = r.ID
			}
			_, _, err = e.m.Catalogue.AddCodes(ctx, r.ID, list)
			require.NoError(t, err)
		}
		e.items = append(e.items, chkItem{name: c.name, kind: c.kind, reward: r.ID})
	}
	// Gift cards of the provider: ordinary brands, one with a stock of ten (4000), the sandbox.
	for _, b := range []struct {
		brand string
		faces []money.Amount
	}{
		{"AMAZON", []money.Amount{10000, 25000, 50000}}, {"FLIPKART", []money.Amount{25000, 50000}},
		{"BIGBASKET", []money.Amount{50000}}, {"PLAYSTATION", []money.Amount{400000}},
		{"SANDBOX_FAIL", []money.Amount{10000, 50000}}, {"SANDBOX_SLOW", []money.Amount{10000, 50000}},
		{"SANDBOX_SLOW_FAIL", []money.Amount{10000, 50000}}, {"SANDBOX_NO_STOCK", []money.Amount{10000}},
	} {
		list, _, err := e.m.Catalogue.List(ctx, catalogue.ListQuery{GameID: g.ID, CoinID: e.coin.ID, Brand: b.brand, Limit: 10})
		require.NoError(t, err)
		i := slices.IndexFunc(list, func(l catalogue.Listed) bool { return l.Reward.ValueType == catalogue.Fixed })
		require.GreaterOrEqual(t, i, 0, b.brand)
		for _, f := range b.faces {
			require.True(t, list[i].Reward.OffersFace(f), "%s offers %d", b.brand, f)
		}
		e.items = append(e.items, chkItem{name: b.brand, kind: chkProvider, reward: list[i].Reward.ID, faces: b.faces})
	}
	return e
}

// chkProblems reports what the checks find: every problem counts, the first few of each check
// are printed.
type chkProblems struct {
	t     *testing.T
	mu    sync.Mutex
	count map[string]int
}

func (p *chkProblems) check(ok bool, check, format string, args ...any) {
	if ok {
		return
	}
	p.t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.count[check]++
	if p.count[check] <= 5 {
		p.t.Errorf("[%s] "+format, append([]any{check}, args...)...)
	}
}

func (p *chkProblems) summary() {
	for check, n := range p.count {
		if n > 5 {
			p.t.Errorf("[%s] %d problems in all", check, n)
		}
	}
}

func TestRandomOperationsKeepEveryBalanceTrue(t *testing.T) {
	t.Parallel()
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("CHECKER_SEED"); s != "" {
		var err error
		seed, err = strconv.ParseUint(s, 10, 64)
		require.NoError(t, err)
	}
	t.Logf("seed %d: CHECKER_SEED=%d go test -count=1 -run TestRandomOperations ./app/ replays it", seed, seed)
	began := time.Now()
	e := chkSetup(t)
	t.Logf("setup %v", time.Since(began).Round(time.Millisecond))
	ctx := context.Background()

	// The jobs, as River runs them.
	jobsCtx, stopJobs := context.WithCancel(ctx)
	defer stopJobs()
	runner := &chkJobs{e: e, ctx: jobsCtx, running: map[uuid.UUID]bool{}}
	runnerDone := make(chan struct{})
	var workersDone atomic.Bool
	go func() {
		defer close(runnerDone)
		runner.dispatch(&workersDone)
	}()

	// The provider misbehaves at random moments until the workers are done.
	chaosDone := make(chan struct{})
	go func() {
		defer close(chaosDone)
		rng := rand.New(rand.NewPCG(seed, 1<<32))
		for !workersDone.Load() {
			var b fakevouchers.Behaviour
			hold := time.Duration(20+rng.IntN(130)) * time.Millisecond
			switch r := rng.IntN(100); {
			case r < 45:
				hold = time.Duration(100+rng.IntN(300)) * time.Millisecond
			case r < 63:
				b = fakevouchers.Behaviour{FailNext: 1 + rng.IntN(4), FailStatus: []int{500, 503}[rng.IntN(2)]}
			case r < 73:
				b = fakevouchers.Behaviour{Status: 503}
			case r < 98:
				// Longer than the purchase's wait: the purchase answers TIMEOUT while its job asks.
				b, hold = fakevouchers.Behaviour{StallMs: 250 + rng.IntN(200)}, time.Duration(50+rng.IntN(200))*time.Millisecond
			default:
				b, hold = fakevouchers.Behaviour{Status: 503}, chkDeadline+300*time.Millisecond // an outage past the deadline
			}
			e.fake.SetBehaviour(b)
			time.Sleep(hold)
		}
		e.fake.SetBehaviour(fakevouchers.Behaviour{})
	}()

	// The workers.
	opsBegan := time.Now()
	results := make([][]chkOutcome, chkWorkers)
	var wg sync.WaitGroup
	for w := range chkWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[w] = e.work(w, rand.New(rand.NewPCG(seed, uint64(w))))
		}()
	}
	wg.Wait()
	workersDone.Store(true)
	<-chaosDone
	ran := time.Since(opsBegan)
	select {
	case <-runnerDone:
	case <-time.After(10 * time.Second): // every order is final well before: the provider answers within its sandbox delay once the chaos ends
		stopJobs()
		<-runnerDone
	}
	var all []chkOutcome
	for _, r := range results {
		all = append(all, r...)
	}
	t.Logf("%d operations in %v, jobs done %v later", len(all), ran.Round(time.Millisecond), (time.Since(opsBegan) - ran).Round(time.Millisecond))

	p := &chkProblems{t: t, count: map[string]int{}}
	runner.report(p)
	e.verify(ctx, t, p, all)
	p.summary()
	t.Logf("checked after %v", time.Since(began).Round(time.Millisecond))
}

// work runs one worker's operations.
func (e *chkEnv) work(w int, rng *rand.Rand) []chkOutcome {
	var out []chkOutcome
	var mu sync.Mutex
	add := func(o chkOutcome) { mu.Lock(); out = append(out, o); mu.Unlock() }
	for n := range chkOpsPerWorker {
		o := chkOutcome{player: rng.IntN(len(e.players)), item: -1}
		retry := rng.IntN(100)
		if retry < 25 {
			o.key = fmt.Sprintf("w%d-%d", w, n)
		}
		var call func(o chkOutcome) chkOutcome
		switch r := rng.IntN(100); {
		case r < 26:
			o.op, o.amount = "distribute", int64(100+rng.IntN(2900))
			call = e.distribute
		case r < 38:
			o.op, o.amount = "deduct", int64(10+rng.IntN(2000))
			if rng.IntN(3) == 0 {
				o.amount = int64(5000 + rng.IntN(50000)) // usually beyond the balance
			}
			call = e.deduct
		default:
			o.op, o.item = "buy", rng.IntN(len(e.items))
			it := e.items[o.item]
			o.amount = int64(1 + rng.IntN(2)) // quantity
			if it.faces != nil {
				o.view.Denomination = it.faces[rng.IntN(len(it.faces))]
			}
			call = e.buy
		}
		switch {
		case o.key != "" && retry < 10: // the same request twice at once
			o.paired = true
			var pair sync.WaitGroup
			for range 2 {
				pair.Add(1)
				go func() { defer pair.Done(); add(call(o)) }()
			}
			pair.Wait()
		case o.key != "" && retry < 20: // a retry after the answer
			add(call(o))
			add(call(o))
		default:
			add(call(o))
		}
	}
	return out
}

func (e *chkEnv) movement(o chkOutcome) coins.Movement {
	p := e.players[o.player]
	return coins.Movement{GameID: e.caller.GameID, Environment: e.caller.Environment, PlayerID: p.ID, UserUUID: p.StudioRef(),
		CoinID: e.coin.ID, Amount: o.amount, IdempotencyKey: o.key}
}

func (e *chkEnv) distribute(o chkOutcome) chkOutcome {
	o.tx, o.replayed, o.err = e.m.Coins.Distribute(context.Background(), e.movement(o))
	return o
}

func (e *chkEnv) deduct(o chkOutcome) chkOutcome {
	o.tx, o.replayed, o.err = e.m.Coins.Deduct(context.Background(), e.movement(o))
	return o
}

func (e *chkEnv) buy(o chkOutcome) chkOutcome {
	var face *money.Amount
	if o.view.Denomination != 0 {
		f := o.view.Denomination
		face = &f
	}
	o.view, o.replayed, o.err = e.m.Orders.Buy(context.Background(), orders.Purchase{Caller: e.caller, Player: e.players[o.player],
		RewardID: e.items[o.item].reward, CoinID: e.coin.ID, Denomination: face, Quantity: int(o.amount), IdempotencyKey: o.key})
	return o
}

// chkJobs runs the fulfilment jobs as River would: it claims each job from river_job, runs it
// at its scheduled time, sleeps as long as Fulfil asks, retries an error, and completes the job
// once Fulfil answers zero. A job never runs again after that.
type chkJobs struct {
	e       *chkEnv
	ctx     context.Context
	wg      sync.WaitGroup
	mu      sync.Mutex
	errs    []string
	running map[uuid.UUID]bool
}

func (j *chkJobs) dispatch(workersDone *atomic.Bool) {
	for {
		last := workersDone.Load() // every purchase has committed: one more claim finds every job
		rows, err := j.e.pool.Query(j.ctx, `UPDATE river_job SET state = 'running', attempted_at = now()
			WHERE kind = 'fulfil_order' AND state IN ('available', 'scheduled')
			RETURNING id, (args->>'order_id')::uuid, scheduled_at`)
		if err != nil {
			j.fail("claim jobs: %v", err)
			break
		}
		for rows.Next() {
			var id int64
			var order uuid.UUID
			var at time.Time
			if err := rows.Scan(&id, &order, &at); err != nil {
				j.fail("claim jobs: %v", err)
				continue
			}
			j.mu.Lock()
			j.running[order] = true
			j.mu.Unlock()
			j.wg.Add(1)
			go j.run(id, order, at)
		}
		rows.Close()
		if last || j.ctx.Err() != nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	j.wg.Wait()
}

func (j *chkJobs) sleep(d time.Duration) bool {
	select {
	case <-time.After(d):
		return true
	case <-j.ctx.Done():
		return false
	}
}

func (j *chkJobs) run(jobID int64, order uuid.UUID, at time.Time) {
	defer j.wg.Done()
	if !j.sleep(time.Until(at)) {
		return
	}
	for attempt := 1; ; {
		next, err := j.e.m.Orders.Fulfil(j.ctx, order)
		switch {
		case j.ctx.Err() != nil:
			return
		case err != nil:
			j.fail("job of order %s, attempt %d: %v", order, attempt, err)
			if attempt++; attempt > 25 || !j.sleep(50*time.Millisecond) {
				return
			}
			continue
		case next > 0:
			if !j.sleep(next) {
				return
			}
			continue
		}
		break
	}
	_, err := j.e.pool.Exec(context.Background(), `UPDATE river_job SET state = 'completed', finalized_at = now() WHERE id = $1`, jobID)
	if err != nil {
		j.fail("complete job %d: %v", jobID, err)
	}
	j.mu.Lock()
	delete(j.running, order)
	j.mu.Unlock()
}

func (j *chkJobs) fail(format string, args ...any) {
	j.mu.Lock()
	j.errs = append(j.errs, fmt.Sprintf(format, args...))
	j.mu.Unlock()
}

func (j *chkJobs) report(p *chkProblems) {
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, msg := range j.errs {
		p.check(false, "job error", "%s", msg)
	}
	for order := range j.running {
		p.check(false, "job unfinished", "the job of order %s never answered final", order)
	}
}

// chkOrder is an order as the database has it.
type chkOrder struct {
	id, player, reward   uuid.UUID
	status               orders.Status
	quantity             int
	spent                int64
	debitTx, refundTx    *uuid.UUID
	provider             *string
	reason               string
	deadline, updated    time.Time
	codes                int
	debits, refunds      []uuid.UUID // journal entries referencing the order
	debitSum, refundSum  int64
	lastMove, transition string
}

// chkParse reads a reference as an order id; anything else is the nil id.
func chkParse(ref string) uuid.UUID {
	id, _ := uuid.Parse(ref)
	return id
}

// verify checks the database against itself, the provider and what the workers saw.
func (e *chkEnv) verify(ctx context.Context, t *testing.T, p *chkProblems, all []chkOutcome) {
	t.Helper()
	game := e.caller.GameID
	q := func(sql string, args []any, scan func(pgxRow) error) {
		t.Helper()
		rows, err := e.pool.Query(ctx, sql, args...)
		require.NoError(t, err)
		defer rows.Close()
		for rows.Next() {
			require.NoError(t, scan(rows))
		}
		require.NoError(t, rows.Err())
	}

	// 1. Every (player, coin): its balance is its journal, never negative; lifetime sums match.
	var balances int
	q(`SELECT coalesce(b.player_id, j.player_id), coalesce(b.balance, -1), coalesce(b.lifetime_earned, -1), coalesce(b.lifetime_spent, -1),
	          coalesce(j.credits, 0), coalesce(j.debits, 0), coalesce(j.min_after, 0)
	   FROM (SELECT * FROM balances WHERE coin_id = $1) b
	   FULL JOIN (SELECT player_id, sum(amount) FILTER (WHERE type = 'CREDIT')::bigint AS credits,
	                     sum(amount) FILTER (WHERE type = 'DEBIT')::bigint AS debits, min(balance_after) AS min_after
	              FROM coin_transactions WHERE coin_id = $1 GROUP BY player_id) j ON j.player_id = b.player_id`,
		[]any{e.coin.ID}, func(r pgxRow) error {
			var player uuid.UUID
			var bal, earned, spent, credits, debits, minAfter int64
			if err := r.Scan(&player, &bal, &earned, &spent, &credits, &debits, &minAfter); err != nil {
				return err
			}
			balances++
			p.check(bal == credits-debits, "balance is journal", "player %s: balance %d, journal %d − %d = %d", player, bal, credits, debits, credits-debits)
			p.check(bal >= 0 && minAfter >= 0, "balance not negative", "player %s: balance %d, lowest balance_after %d", player, bal, minAfter)
			p.check(earned == credits && spent == debits, "lifetime sums", "player %s: earned %d spent %d, journal credits %d debits %d", player, earned, spent, credits, debits)
			return nil
		})
	p.check(balances > 0, "balances", "no balance at all")

	// Every journal entry's reason and type go together.
	q(`SELECT reason, type, count(*) FROM coin_transactions WHERE game_id = $1 GROUP BY 1, 2`, []any{game}, func(r pgxRow) error {
		var reason, typ string
		var n int
		if err := r.Scan(&reason, &typ, &n); err != nil {
			return err
		}
		want := map[string]string{coins.ReasonGameCredit: "CREDIT", coins.ReasonGameDebit: "DEBIT",
			orders.ReasonPurchaseDebit: "DEBIT", orders.ReasonRefundCredit: "CREDIT"}[reason]
		p.check(want == typ, "journal reasons", "%d %s entries of reason %s", n, typ, reason)
		return nil
	})

	// 2. The orders, with their journal entries, codes and transitions.
	ords := map[uuid.UUID]*chkOrder{}
	q(`SELECT id, player_id, reward_id, status, quantity, coins_spent, debit_tx_id, refund_tx_id, provider_product, failure_reason,
	          deadline_at, updated_at, (SELECT count(*) FROM order_codes c WHERE c.order_id = o.id)
	   FROM orders o WHERE game_id = $1`, []any{game}, func(r pgxRow) error {
		o := &chkOrder{}
		if err := r.Scan(&o.id, &o.player, &o.reward, &o.status, &o.quantity, &o.spent, &o.debitTx, &o.refundTx, &o.provider,
			&o.reason, &o.deadline, &o.updated, &o.codes); err != nil {
			return err
		}
		ords[o.id] = o
		return nil
	})
	q(`SELECT id, reference_id, reason, amount, player_id FROM coin_transactions
	   WHERE game_id = $1 AND reason IN ($2, $3)`, []any{game, orders.ReasonPurchaseDebit, orders.ReasonRefundCredit}, func(r pgxRow) error {
		var id, player uuid.UUID
		var ref, reason string
		var amount int64
		if err := r.Scan(&id, &ref, &reason, &amount, &player); err != nil {
			return err
		}
		o := ords[chkParse(ref)]
		p.check(o != nil && o.player == player, "order entries", "%s entry %s references %q, no order of its player", reason, id, ref)
		if o == nil {
			return nil
		}
		if reason == orders.ReasonPurchaseDebit {
			o.debits, o.debitSum = append(o.debits, id), o.debitSum+amount
		} else {
			o.refunds, o.refundSum = append(o.refunds, id), o.refundSum+amount
		}
		return nil
	})
	q(`SELECT t.order_id, coalesce(t.from_status, ''), t.to_status FROM order_transitions t JOIN orders o ON o.id = t.order_id
	   WHERE o.game_id = $1 ORDER BY t.order_id, t.id`, []any{game}, func(r pgxRow) error {
		var id uuid.UUID
		var from, to string
		if err := r.Scan(&id, &from, &to); err != nil {
			return err
		}
		o := ords[id]
		ok := from == o.lastMove && (from == "" && to == string(orders.Initiated) || from != "" && orders.CanMove(orders.Status(from), orders.Status(to)))
		p.check(ok, "transitions", "order %s moved %q → %q after %q", id, from, to, o.lastMove)
		o.lastMove, o.transition = to, o.transition+" → "+to
		return nil
	})
	var byStatus = map[orders.Status]int{}
	for _, o := range ords {
		byStatus[o.status]++
		p.check(o.status.Final(), "order final", "order %s is left %s (%s)", o.id, o.status, o.transition)
		p.check(o.lastMove == string(o.status), "transitions", "order %s is %s, its last transition %q", o.id, o.status, o.lastMove)
		p.check(len(o.debits) == 1 && o.debitSum == o.spent && o.debitTx != nil && o.debits[0] == *o.debitTx,
			"one debit", "order %s (%s, %d coins): debits %v of %d in all, debit_tx_id %v", o.id, o.status, o.spent, o.debits, o.debitSum, o.debitTx)
		if o.status == orders.Failed {
			p.check(len(o.refunds) == 1 && o.refundSum == o.spent && o.refundTx != nil && o.refunds[0] == *o.refundTx,
				"one refund", "FAILED order %s (%d coins): refunds %v of %d in all, refund_tx_id %v", o.id, o.spent, o.refunds, o.refundSum, o.refundTx)
		} else {
			p.check(len(o.refunds) == 0 && o.refundTx == nil, "no refund", "%s order %s has refunds %v, refund_tx_id %v", o.status, o.id, o.refunds, o.refundTx)
		}
		want := 0
		if o.status == orders.Success {
			want = o.quantity
		}
		p.check(o.codes == want, "codes", "%s order %s of %d has %d codes", o.status, o.id, o.quantity, o.codes)
	}

	// 3. Pools: a code taken belongs to one SUCCESS order of its reward, which holds it (sealed
	// bytes move unchanged); every pool order took exactly its quantity.
	taken := map[uuid.UUID]int{}
	q(`SELECT c.reward_id, c.order_id, EXISTS (SELECT 1 FROM order_codes oc WHERE oc.order_id = c.order_id AND oc.code = c.code)
	   FROM catalogue_codes c WHERE c.order_id IS NOT NULL`, nil, func(r pgxRow) error {
		var reward, order uuid.UUID
		var held bool
		if err := r.Scan(&reward, &order, &held); err != nil {
			return err
		}
		o := ords[order]
		p.check(o != nil && o.status == orders.Success && o.reward == reward && held, "pool codes",
			"a code of reward %s is taken by order %s, which does not exist, is not a SUCCESS of that reward, or does not hold it (held %v)",
			reward, order, held)
		taken[order]++
		return nil
	})
	itemOf := map[uuid.UUID]chkItem{}
	for _, it := range e.items {
		itemOf[it.reward] = it
	}
	for _, o := range ords {
		if k := itemOf[o.reward].kind; (k == chkPool || k == chkCooldown) && o.status == orders.Success {
			p.check(taken[o.id] == o.quantity, "pool codes", "pool order %s of %d took %d codes", o.id, o.quantity, taken[o.id])
		}
	}

	// 4. The codes opened through the service: a code is delivered once (the shared code aside),
	// a pool's codes come from its pool, and a provider order's codes are the provider's.
	views := map[uuid.UUID]orders.View{}
	for _, pl := range e.players {
		list, total, err := e.m.Orders.PlayerOrders(ctx, pl.ID, nil, 10_000, 0)
		require.NoError(t, err)
		require.Len(t, list, int(total))
		for _, v := range list {
			views[v.ID] = v
		}
	}
	p.check(len(views) == len(ords), "views", "the service shows %d orders, the database has %d", len(views), len(ords))
	owner := map[string]uuid.UUID{}
	for _, v := range views {
		it := itemOf[v.RewardID]
		for _, c := range v.Codes {
			if it.kind == chkShared {
				p.check(c.Code == "SHARED-CHECKER-CODE", "shared code", "order %s got %q", v.ID, c.Code)
				continue
			}
			prev, dup := owner[c.Code]
			p.check(!dup, "code once", "code %s delivered to orders %s and %s", c.Code, prev, v.ID)
			owner[c.Code] = v.ID
			if it.kind == chkPool || it.kind == chkCooldown {
				p.check(e.poolSet[c.Code] == v.RewardID, "pool codes", "order %s of %s got %q, not one of its pool", v.ID, it.name, c.Code)
			}
		}
	}
	provided := map[string][]fakevouchers.Order{}
	for _, po := range e.fake.Orders() {
		provided[po.ExternalRefID] = append(provided[po.ExternalRefID], po)
	}
	var leaked, issued, refused int
	for ref, list := range provided {
		o := ords[chkParse(ref)]
		p.check(len(list) == 1, "provider once", "reference %s placed as %d provider orders", ref, len(list))
		p.check(o != nil && o.provider != nil, "provider orders", "the provider has order %s, we have no such provider order", ref)
	}
	for _, o := range ords {
		if o.provider == nil {
			continue
		}
		var po *fakevouchers.Order
		if list := provided[o.id.String()]; len(list) > 0 {
			po = &list[0]
		}
		switch {
		case o.status == orders.Success:
			ok := po != nil && po.Status == fakevouchers.StatusComplete && len(po.Rewards) == len(views[o.id].Codes)
			for i := 0; ok && i < len(po.Rewards); i++ {
				c, r := views[o.id].Codes[i], po.Rewards[i]
				ok = c.Code == r.Code && c.Pin == r.Pin && c.ProviderVoucherID == r.VoucherID && c.Value == money.Amount(r.FaceValue)
			}
			p.check(ok, "provider codes", "SUCCESS order %s: codes %+v, the provider's %+v", o.id, views[o.id].Codes, po)
			issued++
		case o.status != orders.Failed:
			// Not final: reported above.
		case strings.Contains(o.reason, "deadline"):
			// Failed at the deadline because the provider never got it (a provider order's
			// failure is its refusal): a placement still in flight could have reached it since
			// (counted below).
			p.check(o.updated.After(o.deadline), "deadline", "order %s failed at the deadline at %v, before its deadline %v", o.id, o.updated, o.deadline)
			if po != nil && po.Status == fakevouchers.StatusComplete {
				leaked++
			}
		default:
			p.check(po != nil && po.Status == fakevouchers.StatusFailed, "provider refusal",
				"order %s FAILED (%q), the provider's %+v", o.id, o.reason, po)
			refused++
		}
	}
	// A provider order's job is dropped by the transaction that makes it final within its
	// purchase's wait; every other provider order keeps its one job (final, as checked above).
	var jobs, jobOrders, stray int
	require.NoError(t, e.pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE o.provider_product IS NOT NULL),
			count(DISTINCT o.id) FILTER (WHERE o.provider_product IS NOT NULL), count(*) FILTER (WHERE o.provider_product IS NULL)
		FROM river_job j JOIN orders o ON o.id = (j.args->>'order_id')::uuid WHERE j.kind = 'fulfil_order' AND o.game_id = $1`, game).Scan(&jobs, &jobOrders, &stray))
	var providerOrders int
	for _, o := range ords {
		if o.provider != nil {
			providerOrders++
		}
	}
	p.check(issued > 0 && refused > 0, "coverage", "%d provider orders issued, %d refused", issued, refused)
	p.check(jobs == jobOrders && jobs <= providerOrders && stray == 0, "one job",
		"%d provider orders, %d jobs of theirs (of %d orders), %d jobs of other orders", providerOrders, jobs, jobOrders, stray)

	// 5. A cooldown coupon is bought at most once per player (failed orders aside).
	perPlayer := map[uuid.UUID]int{}
	for _, o := range ords {
		if itemOf[o.reward].kind == chkCooldown && o.status != orders.Failed {
			perPlayer[o.player]++
			p.check(perPlayer[o.player] == 1, "cooldown", "player %s holds %d cooldown orders", o.player, perPlayer[o.player])
		}
	}

	// 6. What the workers saw agrees with the database.
	e.verifyOutcomes(ctx, t, p, all, ords)

	t.Logf("orders by status %v; %d provider orders; %d failed at the deadline though the provider issued them", byStatus, providerOrders, leaked)
}

// pgxRow is what a scan callback reads.
type pgxRow interface{ Scan(dest ...any) error }

func (e *chkEnv) verifyOutcomes(ctx context.Context, t *testing.T, p *chkProblems, all []chkOutcome, ords map[uuid.UUID]*chkOrder) {
	t.Helper()
	allowed := map[string][]string{
		"distribute": {},
		"deduct":     {coins.ErrInsufficientBalance.Code},
		"buy": {coins.ErrInsufficientBalance.Code, orders.ErrOutOfStock.Code, orders.ErrCooldown.Code,
			vouchers.ErrUnavailable.Code},
	}
	type keyed struct {
		op     string
		player int
		key    string
	}
	outcomesOf := map[keyed][]chkOutcome{}
	txs := map[uuid.UUID]chkOutcome{}    // successful movements, by journal entry
	bought := map[uuid.UUID]chkOutcome{} // successful purchases, by order
	tally := map[string]int{}
	for _, o := range all {
		code := errs.CodeOf(o.err)
		switch {
		case o.err == nil && o.replayed:
			tally[o.op+" replayed"]++
		case o.err == nil:
			tally[o.op+" ok"]++
		default:
			tally[o.op+" "+code]++
		}
		if o.key != "" {
			k := keyed{o.op, o.player, o.key}
			outcomesOf[k] = append(outcomesOf[k], o)
		}
		if o.err != nil {
			ok := slices.Contains(allowed[o.op], code) || (o.paired && errors.Is(o.err, idempotency.ErrInProgress))
			if code == orders.ErrCooldown.Code {
				ok = e.items[o.item].kind == chkCooldown
			}
			p.check(ok, "expected errors", "%s of %d (key %q, paired %v): %v", o.op, o.amount, o.key, o.paired, o.err)
			continue
		}
		if o.op == "buy" {
			p.check(o.view.ID != uuid.Nil, "buy answer", "a purchase answered no order")
			bought[o.view.ID] = o
		} else {
			txs[o.tx.ID] = o
		}
	}
	t.Logf("outcomes: %v", tally)

	// One outcome per idempotency key: every answer that is an outcome (not "in progress", not
	// an unavailable provider, which frees the key) is the same.
	for k, list := range outcomesOf {
		first := ""
		for _, o := range list {
			var got string
			switch {
			case errors.Is(o.err, idempotency.ErrInProgress) || errors.Is(o.err, vouchers.ErrUnavailable):
				continue
			case o.err != nil:
				got = "error " + errs.CodeOf(o.err)
			case o.op == "buy":
				got = "order " + o.view.ID.String()
			default:
				got = "tx " + o.tx.ID.String()
			}
			if first == "" {
				first = got
			}
			p.check(got == first, "one outcome per key", "%s key %s of player %d: %s, then %s", k.op, k.key, k.player, first, got)
		}
	}

	// Every movement answered is in the journal as answered, and the journal has no other.
	var credited, debited, seenIn, seenOut int64
	rows, err := e.pool.Query(ctx, `SELECT id, player_id, type, amount, balance_after, reason FROM coin_transactions
		WHERE game_id = $1 AND reason IN ($2, $3)`, e.caller.GameID, coins.ReasonGameCredit, coins.ReasonGameDebit)
	require.NoError(t, err)
	inJournal := map[uuid.UUID]bool{}
	for rows.Next() {
		var id, player uuid.UUID
		var typ, reason string
		var amount, after int64
		require.NoError(t, rows.Scan(&id, &player, &typ, &amount, &after, &reason))
		inJournal[id] = true
		if typ == "CREDIT" {
			credited += amount
		} else {
			debited += amount
		}
		o, ok := txs[id]
		p.check(ok, "journal answered", "journal entry %s (%s %d) answered no worker", id, reason, amount)
		if ok {
			want := map[string]string{"distribute": coins.ReasonGameCredit, "deduct": coins.ReasonGameDebit}[o.op]
			p.check(e.players[o.player].ID == player && o.amount == amount && o.tx.BalanceAfter == after && want == reason,
				"journal answered", "entry %s: %s %d after %d for %s; the %s answered %d after %d for %s",
				id, reason, amount, after, player, o.op, o.amount, o.tx.BalanceAfter, e.players[o.player].ID)
		}
	}
	require.NoError(t, rows.Err())
	rows.Close()
	for id, o := range txs {
		p.check(inJournal[id], "journal answered", "%s %s of %d answered but not in the journal", o.op, id, o.amount)
		if o.op == "distribute" {
			seenIn += o.amount
		} else {
			seenOut += o.amount
		}
	}
	p.check(seenIn == credited && seenOut == debited, "totals", "workers distributed %d and deducted %d; the journal credits %d and debits %d",
		seenIn, seenOut, credited, debited)

	// Every purchase answered is an order, as answered; there is no other order.
	for id, o := range bought {
		d := ords[id]
		p.check(d != nil, "orders answered", "purchase answered order %s, which does not exist", id)
		if d == nil {
			continue
		}
		p.check(d.player == e.players[o.player].ID && d.reward == e.items[o.item].reward && d.quantity == int(o.amount) && d.spent == o.view.CoinsSpent,
			"orders answered", "order %s differs from its answer", id)
		p.check(!o.view.Status.Final() || o.view.Status == d.status, "orders answered", "order %s answered %s, is %s", id, o.view.Status, d.status)
		if o.view.Status == orders.Success {
			p.check(len(o.view.Codes) == d.quantity, "orders answered", "order %s answered SUCCESS with %d codes", id, len(o.view.Codes))
		}
	}
	for id := range ords {
		_, ok := bought[id]
		p.check(ok, "orders answered", "order %s was answered to no purchase", id)
	}

	// Each player's balance is what the workers saw happen to it.
	want := map[uuid.UUID]int64{}
	for _, o := range txs {
		if o.op == "distribute" {
			want[e.players[o.player].ID] += o.amount
		} else {
			want[e.players[o.player].ID] -= o.amount
		}
	}
	for _, o := range ords {
		if o.status != orders.Failed {
			want[o.player] -= o.spent
		}
	}
	for _, pl := range e.players {
		funds, err := e.m.Coins.Funds(ctx, e.caller.GameID, pl.ID)
		require.NoError(t, err)
		p.check(funds[0].Balance == want[pl.ID], "balance as seen", "player %s: balance %d, the workers' operations make %d", pl.ID, funds[0].Balance, want[pl.ID])
	}

	// The run exercised what it is for.
	for _, k := range []string{"distribute ok", "deduct ok", "deduct INSUFFICIENT_BALANCE", "buy ok", "buy OUT_OF_STOCK", "distribute replayed", "buy replayed"} {
		p.check(tally[k] > 0, "coverage", "no %q outcome", k)
	}
}
