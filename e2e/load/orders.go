package main

// The purchase scenarios: POST /rewards/purchase of a coupon, whose code comes from the reward's
// code pool in the purchase's own transaction, and of a gift card, which the service orders from
// the voucher provider after that transaction and waits for (in this benchmark the fake provider
// of fakes/vouchers, which the service starts in-process on a loopback port when
// REWARDS_VOUCHER_BASE_URL is unset, as it is here). Each client buys as a player of its own, on
// a studio and game of their own. Beside them, pgbench-tpcb runs pgbench's built-in tpcb-like
// script (per transaction: three one-row updates, a select and an insert) on pgbench-N's database,
// on the same PostgreSQL with the same clients: the database's own write-transaction rate, which
// the ratio compares the purchases with.
//
// Everything is set up through the operator API, as an operator would: a brand and a COUPON
// reward with a code pool (added in calls of up to 10,000 codes: before the warm-up, for it and
// a guessed rate; then, if need be, for the measured run at the rate the warm-up measured, both
// with a margin), the provider's catalogue synced (POST /admin/v1/catalogue/sync) for an ordinary
// brand's gift card, and the players funded by distribute. A coupon purchase's cost grows with
// the unused codes of the pool (it counts them, and sorts those added with the oldest to take
// one), so the pool is sized to the run rather than as large as possible. The rewards store
// scenarios need the catalogue they seed: when they are in the run it is seeded first, and the
// coupon and the synced gift cards are hidden from their game.
//
// A gift card order that the provider does not finish within the purchase's wait
// (REWARDS_VOUCHER_WAIT) is handed to a fulfilment job: the gift card run waits for its orders'
// jobs that remain before the next scenario starts.

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5"
)

// The purchase scenarios, their yardstick and the goals of the issue, checked at goalClients
// clients.
const (
	couponScenario = "purchase-coupon"
	giftScenario   = "purchase-giftcard"
	tpcbBaseline   = "pgbench-tpcb"

	goalCouponRatio = 0.30 // coupon purchases at least 30% of tpcb-like's transactions
	goalCouponP99   = 40 * time.Millisecond

	couponBrand = "LOAD_BENCH_COUPONS"
	giftBrand   = "AMAZON" // an ordinary brand of the fake provider: unlimited stock, issued at once

	codesPerCall = 10_000 // the most codes POST /admin/v1/catalogue/rewards/{id}/codes takes
	// couponRateGuess sizes the code pool for the warm-up (purchases a second, all clients
	// together), which measures the rate the run's pool is sized for; codeMargin is the room
	// left over the expected purchases.
	couponRateGuess = 2000.0
	codeMargin      = 1.5
	codeSlack       = 1000
	// fundingChunk is the largest single credit (coins' MaxAmount).
	fundingChunk = 1_000_000_000
	// fulfilDrain bounds the wait, after a gift card run, for the fulfilment jobs its orders
	// queued (each due REWARDS_VOUCHER_WAIT, 5 s by default, after its purchase).
	fulfilDrain = time.Minute
)

// orderStats is what a purchase run (or its pgbench yardstick) adds to its result.
type orderStats struct {
	baseline     string         // purchase runs: tpcbBaseline
	failures     map[string]int // measured answers that were not a SUCCESS order, by error code or status
	warmupFailed map[string]int // the same for the warm-up, which is not in the result's errors
	codesAdded   int64          // coupon: codes added to the pool for this run (warm-up included)
	codesAtStart int64          // coupon: unused codes in the pool when the measured run started
	codesLeft    int64          // coupon: unused codes in the pool after the run
	drain        time.Duration  // gift card: until the fulfilment jobs of its orders had all run
	undrained    int64          // gift card: fulfilment jobs still waiting when fulfilDrain ran out
}

// orderReward is a reward the purchase scenarios buy, as its fetch shows it to the players.
type orderReward struct {
	id, name, kind string
	face           float64 // face value bought
	price          int64   // its coin price
	body           []byte  // the purchase's body
}

// orderFixture is the purchase scenarios' studio, rewards and players, made by the first of
// them to run.
type orderFixture struct {
	key, coinID, gameID string
	tokens              []string
	balances            []int64 // each player's balance, as its last purchase answered it
	coupon, gift        orderReward
	synced              struct{ Created, Updated, Deactivated int64 }
	codePrefix          string
	codeSeq             int
	codesAdded          int64
	codeCalls           int
	hiddenFromMain      int
}

// orderFx is the fixture of this run (a package variable: one environment per process).
var orderFx *orderFixture

func (env *environment) orderFixture(ctx context.Context) (*orderFixture, error) {
	if orderFx != nil {
		return orderFx, nil
	}
	// The rewards store scenarios seed an empty catalogue, and measure it: when they are in the
	// run, it is seeded first (whatever the order of the scenarios), and what this fixture adds to
	// the shared catalogue is hidden from their game.
	storeInRun := slices.ContainsFunc(env.opts.scenarios, func(s string) bool {
		return slices.Contains([]string{listScenario, listBaseline, searchScenario, searchBaseline, typoScenario, typoBaseline, uncachedScenario}, s)
	})
	if storeInRun {
		if _, err := env.storeFixture(ctx); err != nil {
			return nil, err
		}
	}
	fmt.Fprintln(os.Stderr, "setting up the purchases (coupon with a code pool, synced gift cards)…")
	fx := &orderFixture{codePrefix: "LB-" + rand.Text()[:10] + "-"}
	var err error
	if fx.key, fx.coinID, err = env.newGame(ctx, "Load Benchmark Orders"); err != nil {
		return nil, err
	}
	op := map[string]string{"Authorization": "Bearer " + env.adminToken}
	if err := env.send(ctx, http.MethodPut, "/admin/v1/catalogue/brands/"+couponBrand, op,
		map[string]any{"name": "Load Benchmark Coupons", "categories": []string{}}, nil, http.StatusCreated, http.StatusOK); err != nil {
		return nil, err
	}
	var created struct{ ID string }
	if err := env.send(ctx, http.MethodPost, "/admin/v1/catalogue/rewards", op, map[string]any{
		"type": "COUPON", "brandCode": couponBrand, "name": "Load benchmark coupon", "mrp": 10,
	}, &created, http.StatusCreated); err != nil {
		return nil, err
	}
	if err := env.send(ctx, http.MethodPost, "/admin/v1/catalogue/sync", op, nil, &fx.synced, http.StatusOK); err != nil {
		return nil, fmt.Errorf("sync the voucher provider's catalogue: %w", err)
	}
	var gifts struct {
		Items []struct {
			ID                string
			Name              string
			ValueType         string `json:"valueType"`
			ProviderProductID string `json:"providerProductId"`
		}
	}
	if err := env.send(ctx, http.MethodGet, "/admin/v1/catalogue/rewards?type=GIFT_CARD&active=true&limit=100&brandCode="+giftBrand,
		op, nil, &gifts, http.StatusOK); err != nil {
		return nil, err
	}
	giftID := ""
	for _, g := range gifts.Items {
		if g.ProviderProductID != "" && g.ValueType == "FIXED" {
			giftID = g.ID
			break
		}
	}
	if giftID == "" {
		return nil, fmt.Errorf("the synced catalogue has no FIXED gift card of %s (sync: %+v)", giftBrand, fx.synced)
	}

	// One player first, to see the rewards as the players do.
	if _, err := fx.players(ctx, env, 1); err != nil {
		return nil, err
	}
	if fx.coupon, err = fx.fetch(ctx, env, created.ID); err != nil {
		return nil, err
	}
	if fx.gift, err = fx.fetch(ctx, env, giftID); err != nil {
		return nil, err
	}

	conn, err := pgx.Connect(ctx, env.dbURL)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if err := conn.QueryRow(ctx, `SELECT game_id::text FROM coins WHERE id = $1`, fx.coinID).Scan(&fx.gameID); err != nil {
		return nil, fmt.Errorf("the purchases' game: %w", err)
	}
	if storeInRun {
		var mainGame string
		if err := conn.QueryRow(ctx, `SELECT game_id::text FROM coins WHERE id = $1`, env.coinID).Scan(&mainGame); err != nil {
			return nil, fmt.Errorf("the benchmark game: %w", err)
		}
		rows, err := conn.Query(ctx, `SELECT id::text FROM catalogue_rewards WHERE provider_product_id IS NOT NULL OR id = $1`, created.ID)
		if err != nil {
			return nil, err
		}
		ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			if err := env.send(ctx, http.MethodPut, "/admin/v1/games/"+mainGame+"/rewards/"+id, op,
				map[string]any{"hidden": true}, nil, http.StatusOK); err != nil {
				return nil, err
			}
		}
		fx.hiddenFromMain = len(ids)
	}
	orderFx = fx
	return fx, nil
}

// players returns n player tokens of the purchases' game, creating and funding the players not
// made yet with the largest single credit.
func (fx *orderFixture) players(ctx context.Context, env *environment, n int) ([]string, error) {
	for i := len(fx.tokens); i < n; i++ {
		tok, err := env.newPlayer(ctx, fx.key, i)
		if err != nil {
			return nil, err
		}
		fx.tokens = append(fx.tokens, tok)
		fx.balances = append(fx.balances, 0)
		if err := fx.fund(ctx, env, i, fundingChunk); err != nil {
			return nil, err
		}
	}
	return fx.tokens[:n], nil
}

// fund distributes coins to player i, in credits of at most fundingChunk.
func (fx *orderFixture) fund(ctx context.Context, env *environment, i int, coins int64) error {
	h := map[string]string{"x-api-key": fx.key, "Authorization": "Bearer " + fx.tokens[i]}
	for coins > 0 {
		amount := min(coins, fundingChunk)
		if err := env.call(ctx, "/coins/"+fx.coinID+"/distribute", h, map[string]any{"amount": amount, "reason": "LOAD_FUNDING"},
			http.StatusCreated, nil); err != nil {
			return err
		}
		fx.balances[i] += amount
		coins -= amount
	}
	return nil
}

// ensureFunds tops up each of the first n players so that it can buy rw purchases times.
func (fx *orderFixture) ensureFunds(ctx context.Context, env *environment, n int, rw orderReward, purchases int64) error {
	need := rw.price * purchases
	for i := range n {
		if fx.balances[i] < need {
			if err := fx.fund(ctx, env, i, need-fx.balances[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// fetch reads a reward as a player does (GET /rewards/fetch/{id}) and makes the purchase of its
// smallest face value in stock.
func (fx *orderFixture) fetch(ctx context.Context, env *environment, id string) (orderReward, error) {
	var f struct {
		Name          string
		Type          string
		ValueType     string `json:"valueType"`
		Denominations []struct {
			Value     float64
			Price     int64
			Available bool
		}
	}
	h := map[string]string{"x-api-key": fx.key, "Authorization": "Bearer " + fx.tokens[0], "x-language": "en"}
	if err := env.send(ctx, http.MethodGet, "/rewards/fetch/"+id+"?coinId="+url.QueryEscape(fx.coinID), h, nil, &f, http.StatusOK); err != nil {
		return orderReward{}, err
	}
	rw := orderReward{id: id, name: f.Name, kind: f.Type}
	// A coupon's one value is out of stock while its pool is empty: it gets codes before each run.
	for _, d := range f.Denominations {
		if d.Available || f.Type == "COUPON" {
			rw.face, rw.price = d.Value, d.Price
			break
		}
	}
	if rw.price == 0 {
		return orderReward{}, fmt.Errorf("reward %s (%s) has no face value in stock: %+v", id, f.Name, f.Denominations)
	}
	body := map[string]any{"rewardId": id, "coinId": fx.coinID}
	if len(f.Denominations) > 1 {
		body["denomination"] = rw.face
	}
	var err error
	rw.body, err = json.Marshal(body)
	return rw, err
}

// available is the coupon's unused codes, as its fetch shows them.
func (fx *orderFixture) available(ctx context.Context, env *environment) (int64, error) {
	var f struct {
		Inventory struct {
			AvailableQuantity int64 `json:"availableQuantity"`
		}
	}
	h := map[string]string{"x-api-key": fx.key, "Authorization": "Bearer " + fx.tokens[0]}
	err := env.send(ctx, http.MethodGet, "/rewards/fetch/"+fx.coupon.id+"?coinId="+url.QueryEscape(fx.coinID), h, nil, &f, http.StatusOK)
	return f.Inventory.AvailableQuantity, err
}

// stockCodes adds codes to the coupon's pool, in calls of up to codesPerCall, until it holds at
// least want unused ones; it returns how many it added.
func (fx *orderFixture) stockCodes(ctx context.Context, env *environment, want int64) (int64, error) {
	have, err := fx.available(ctx, env)
	if err != nil {
		return 0, err
	}
	if have >= want {
		return 0, nil
	}
	start, added := time.Now(), int64(0)
	op := map[string]string{"Authorization": "Bearer " + env.adminToken}
	for have < want {
		n := int(min(want-have, codesPerCall))
		codes := make([]map[string]string, n)
		for i := range codes {
			fx.codeSeq++
			codes[i] = map[string]string{"code": fx.codePrefix + strconv.Itoa(fx.codeSeq), "pin": strconv.Itoa(1000 + fx.codeSeq%9000)}
		}
		var res struct {
			Added     int64
			Available int64
		}
		if err := env.send(ctx, http.MethodPost, "/admin/v1/catalogue/rewards/"+fx.coupon.id+"/codes", op,
			map[string]any{"codes": codes}, &res, http.StatusCreated); err != nil {
			return added, err
		}
		fx.codeCalls++
		added += res.Added
		have = res.Available
	}
	fx.codesAdded += added
	fmt.Fprintf(os.Stderr, "  %d codes added to the coupon's pool in %s (%d unused)\n", added, time.Since(start).Round(10*time.Millisecond), have)
	return added, nil
}

// codesFor is the pool a run of d at rate purchases a second needs, with its margin.
func codesFor(rate float64, d time.Duration) int64 {
	return int64(math.Ceil(rate*d.Seconds()*codeMargin)) + codeSlack
}

func purchaseCoupon(ctx context.Context, env *environment, clients int) (result, error) {
	fx, err := env.orderFixture(ctx)
	if err != nil {
		return result{}, err
	}
	return fx.run(ctx, env, clients, fx.coupon)
}

func purchaseGiftCard(ctx context.Context, env *environment, clients int) (result, error) {
	fx, err := env.orderFixture(ctx)
	if err != nil {
		return result{}, err
	}
	r, err := fx.run(ctx, env, clients, fx.gift)
	if err != nil {
		return r, err
	}
	// The fulfilment jobs of the gift card orders not final within their purchase's wait run once
	// it is over: they are part of this run's work, not of the next scenario's.
	r.order.drain, r.order.undrained, err = fx.drainFulfilment(ctx, env)
	return r, err
}

// run is driveHTTP for purchases of rw, each phase provisioned first: the warm-up for a guessed
// rate, the measured run for the rate its warm-up measured, both with codeMargin (a client can
// make every purchase of a phase, so each player is funded for all of them).
func (fx *orderFixture) run(ctx context.Context, env *environment, clients int, rw orderReward) (result, error) {
	tokens, err := fx.players(ctx, env, clients)
	if err != nil {
		return result{}, err
	}
	coupon := rw.id == fx.coupon.id
	st := &orderStats{baseline: tpcbBaseline}
	provision := func(purchases int64) error {
		if err := fx.ensureFunds(ctx, env, clients, rw, purchases); err != nil {
			return err
		}
		if !coupon {
			return nil
		}
		added, err := fx.stockCodes(ctx, env, purchases)
		st.codesAdded += added
		return err
	}
	first := env.opts.warmup
	if first == 0 {
		first = env.opts.duration
	}
	if err := provision(codesFor(couponRateGuess, first)); err != nil {
		return result{}, err
	}
	if env.opts.warmup > 0 {
		do, failures := fx.buy(env, rw, tokens)
		w := loop(ctx, clients, env.opts.warmup, do)
		st.warmupFailed = merge(failures)
		if err := ctx.Err(); err != nil {
			return result{}, err
		}
		if err := provision(codesFor(max(w.throughput, 1), env.opts.duration)); err != nil {
			return result{}, err
		}
	}
	// Settled after the measured run's codes are stocked (hence not warmUp).
	if err := env.settle(ctx); err != nil {
		return result{}, err
	}
	if coupon {
		if st.codesAtStart, err = fx.available(ctx, env); err != nil {
			return result{}, err
		}
	}
	do, failures := fx.buy(env, rw, tokens)
	r := loop(ctx, clients, env.opts.duration, do)
	if err := ctx.Err(); err != nil {
		return result{}, err
	}
	st.failures = merge(failures)
	if coupon {
		if st.codesLeft, err = fx.available(ctx, env); err != nil {
			return result{}, err
		}
	}
	r.order = st
	return r, nil
}

// buy is the purchase of rw as client number client: a 200 answering a SUCCESS order is a
// success (runClients counts 201s: that is what it is told); any other answer, a 2xx with an
// order in another state included, is a failure, tallied by error code in failures.
func (fx *orderFixture) buy(env *environment, rw orderReward, tokens []string) (request, []map[string]int) {
	path := env.baseURL + "/rewards/purchase"
	failures := newFailures(len(tokens))
	return func(ctx context.Context, client int) (int, []byte, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, path, bytes.NewReader(rw.body))
		if err != nil {
			return 0, nil, err
		}
		req.Header.Set("x-api-key", fx.key)
		req.Header.Set("Authorization", "Bearer "+tokens[client])
		return placeOrder(env, req, failures[client], func(body []byte) (string, error) {
			var o struct {
				Status  string
				Balance int64
			}
			if err := json.Unmarshal(body, &o); err != nil {
				return "", fmt.Errorf("POST /rewards/purchase: undecodable answer (%v)", err)
			}
			if o.Status == "SUCCESS" {
				fx.balances[client] = o.Balance // each client writes its own player's
			}
			return o.Status, nil
		})
	}, failures
}

func newFailures(clients int) []map[string]int {
	failures := make([]map[string]int, clients)
	for i := range failures {
		failures[i] = map[string]int{}
	}
	return failures
}

// placeOrder sends an order request (a JSON body) and says how it went, for runClients: an
// answer 2xx whose order status (read by status) is SUCCESS is a success, reported as 201;
// anything else is tallied in failures, by error code, HTTP status or order status.
func placeOrder(env *environment, req *http.Request, failures map[string]int, status func(body []byte) (string, error)) (int, []byte, error) {
	req.Header.Set("Content-Type", "application/json")
	resp, err := env.client.Do(req)
	if err != nil {
		if req.Context().Err() == nil {
			failures["transport error"]++
		}
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		failures["transport error"]++
		return 0, nil, err
	}
	if resp.StatusCode/100 != 2 {
		var e struct{ Code string }
		_ = json.Unmarshal(body, &e)
		failures[cmpOr(e.Code, strconv.Itoa(resp.StatusCode))]++
		return resp.StatusCode, body[:min(len(body), 300)], nil
	}
	st, err := status(body)
	if err != nil {
		failures["undecodable answer"]++
		return 0, nil, err
	}
	if st != "SUCCESS" {
		failures["order "+st]++
		return resp.StatusCode, []byte("an order " + st + ", not SUCCESS"), nil
	}
	return http.StatusCreated, nil, nil
}

func cmpOr(s, or string) string {
	if s != "" {
		return s
	}
	return or
}

func merge(per []map[string]int) map[string]int {
	out := map[string]int{}
	for _, m := range per {
		for k, v := range m {
			out[k] += v
		}
	}
	return out
}

// drainFulfilment waits until the fulfilment jobs of the purchases' orders have run, at most
// fulfilDrain, and says how long that took and how many were still waiting.
func (fx *orderFixture) drainFulfilment(ctx context.Context, env *environment) (time.Duration, int64, error) {
	conn, err := pgx.Connect(ctx, env.dbURL)
	if err != nil {
		return 0, 0, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	start := time.Now()
	for {
		var waiting int64
		if err := conn.QueryRow(ctx, `
			SELECT count(*) FROM river_job j JOIN orders o ON o.id = (j.args->>'order_id')::uuid
			WHERE j.kind = 'fulfil_order' AND j.state NOT IN ('completed', 'cancelled', 'discarded') AND o.game_id = $1`,
			fx.gameID).Scan(&waiting); err != nil {
			return 0, 0, fmt.Errorf("count the fulfilment jobs: %w", err)
		}
		if waiting == 0 || time.Since(start) > fulfilDrain {
			if waiting > 0 {
				fmt.Fprintf(os.Stderr, "!!! %d fulfilment jobs of the gift card orders still waiting after %s\n", waiting, fulfilDrain)
			}
			return time.Since(start), waiting, nil
		}
		select {
		case <-ctx.Done():
			return 0, 0, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// send is call for any method, with a body only when body is not nil, accepting any of want.
func (env *environment) send(ctx context.Context, method, path string, headers map[string]string, body, out any, want ...int) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, env.baseURL+path, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := env.client.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if !slices.Contains(want, resp.StatusCode) {
		return fmt.Errorf("%s %s: %d (want %v): %.500s", method, path, resp.StatusCode, want, data)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("%s %s: decode answer: %w", method, path, err)
		}
	}
	return nil
}

// pgbenchTPCB runs pgbench's built-in tpcb-like script (-b tpcb-like: per transaction, update
// one pgbench_accounts row and select it, update a pgbench_tellers and a pgbench_branches row,
// insert into pgbench_history) on pgbench-N's database, as pgbench-N runs -N, and reads its
// transaction log for the latencies.
func pgbenchTPCB(ctx context.Context, env *environment, clients int) (result, error) {
	u, err := env.pgbenchDatabase(ctx)
	if err != nil {
		return result{}, err
	}
	r, err := runPgbench(ctx, env, []string{"-n", "-b", "tpcb-like"}, clients, u)
	r.order = &orderStats{}
	return r, err
}

// reportOrders prints the purchase runs beside pgbench-tpcb, and the goals.
func reportOrders(w io.Writer, results []result) {
	var runs []result
	for _, r := range results {
		if r.order != nil {
			runs = append(runs, r)
		}
	}
	if len(runs) == 0 {
		return
	}
	find := func(name string, clients int) (result, bool) {
		for _, r := range runs {
			if r.scenario == name && r.clients == clients {
				return r, true
			}
		}
		return result{}, false
	}
	ratio := func(r result) (float64, bool) {
		if r.order.baseline == "" {
			return 0, false
		}
		base, ok := find(r.order.baseline, r.clients)
		if !ok || base.throughput == 0 {
			return 0, false
		}
		return r.throughput / base.throughput, true
	}

	fmt.Fprintln(w)
	fmt.Fprintln(w, "Purchases: POST /rewards/purchase on a studio of their own, each client its own player (funded by distribute),")
	fmt.Fprintln(w, "beside pgbench's built-in tpcb-like (pgbench -b tpcb-like: 3 one-row updates, a select and an insert) on the same PostgreSQL.")
	fmt.Fprintln(w, "A purchase counts only when it answers 2xx with a SUCCESS order; anything else is an error.")
	ran := func(name string) bool {
		return slices.ContainsFunc(runs, func(r result) bool { return r.scenario == name })
	}
	if fx := orderFx; fx != nil {
		if ran(couponScenario) {
			fmt.Fprintf(w, "  %-18s COUPON %q, face value %s for %d coins, a code taken from its pool in the purchase's transaction\n",
				couponScenario, fx.coupon.name, units(fx.coupon.face), fx.coupon.price)
		}
		if ran(giftScenario) {
			fmt.Fprintf(w, "  %-18s GIFT_CARD %q, face value %s for %d coins, ordered from the fake voucher provider on loopback\n",
				giftScenario, fx.gift.name, units(fx.gift.face), fx.gift.price)
		}
		fmt.Fprintf(w, "  catalogue sync: %d gift cards created, %d updated; %d codes added to the pool in %d call(s) of up to %d",
			fx.synced.Created, fx.synced.Updated, fx.codesAdded, fx.codeCalls, codesPerCall)
		if fx.hiddenFromMain > 0 {
			fmt.Fprintf(w, "; %d rewards hidden from the rewards store scenarios' game", fx.hiddenFromMain)
		}
		fmt.Fprintln(w)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "scenario\tclients\tthroughput/s\tp50\tp95\tp99\tok\terrors\tof tpcb-like\t")
	for _, r := range runs {
		of := ""
		if x, ok := ratio(r); ok {
			of = fmt.Sprintf("%.0f%%", 100*x)
		}
		errs := fmt.Sprint(r.errors)
		if r.errors > 0 {
			errs += " !!!"
		}
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%s\t%s\t%s\t%d\t%s\t%s\t\n", r.scenario, r.clients, r.throughput, ms(r.p50), ms(r.p95), ms(r.p99), r.ok, errs, of)
	}
	tw.Flush()
	for _, r := range runs {
		st := r.order
		var notes []string
		if len(st.failures) > 0 {
			notes = append(notes, "failed: "+tally(st.failures)+" !!!")
		}
		if len(st.warmupFailed) > 0 {
			notes = append(notes, "warm-up failed: "+tally(st.warmupFailed)+" !!!")
		}
		if r.scenario == couponScenario {
			notes = append(notes, fmt.Sprintf("%d codes added for it; %d unused when the measured run started, %d after",
				st.codesAdded, st.codesAtStart, st.codesLeft))
		}
		if r.scenario == giftScenario || r.scenario == partnerScenario {
			d := fmt.Sprintf("its orders' fulfilment jobs done %s after the run", ms(st.drain))
			if st.undrained > 0 {
				d = fmt.Sprintf("%d fulfilment jobs still waiting %s after the run !!!", st.undrained, ms(st.drain))
			}
			notes = append(notes, d)
		}
		if len(notes) > 0 {
			fmt.Fprintf(w, "  %s at %d clients: %s\n", r.scenario, r.clients, strings.Join(notes, "; "))
		}
	}

	fmt.Fprintln(w)
	coupon, okC := find(couponScenario, goalClients)
	_, okB := find(tpcbBaseline, goalClients)
	if x, ok := ratioOf(coupon, okC && okB, ratio); ok {
		fmt.Fprintf(w, "Goal at %d clients: %s ≥ %.0f%% of %s: %.0f%% — %s\n", goalClients, couponScenario, 100*goalCouponRatio, tpcbBaseline,
			100*x, verdict(x >= goalCouponRatio))
	} else if okC || okB {
		fmt.Fprintf(w, "Goal not evaluated: it needs %s and %s at %d clients in the run.\n", couponScenario, tpcbBaseline, goalClients)
	}
	if okC {
		fmt.Fprintf(w, "Goal at %d clients: %s p99 < %s: %s — %s\n", goalClients, couponScenario, ms(goalCouponP99), ms(coupon.p99),
			verdict(coupon.p99 < goalCouponP99))
	}
	if gift, ok := find(giftScenario, goalClients); ok {
		of := "no " + tpcbBaseline + " to compare with"
		if x, ok := ratio(gift); ok {
			of = fmt.Sprintf("%.0f%% of %s", 100*x, tpcbBaseline)
		}
		fmt.Fprintf(w, "For reference at %d clients (no goal): %s %s, p99 %s.\n", goalClients, giftScenario, of, ms(gift.p99))
	}
	if pw, ok := find(partnerScenario, goalClients); ok {
		fmt.Fprintf(w, "Partner WALLET orders at %d clients (no goal): %.0f/s, p50 %s, p99 %s", goalClients, pw.throughput, ms(pw.p50), ms(pw.p99))
		if c, ok := find(couponScenario, goalClients); ok && c.throughput > 0 {
			fmt.Fprintf(w, "; %.0f%% of %s's rate in the same run", 100*pw.throughput/c.throughput, couponScenario)
		}
		fmt.Fprintln(w, ".")
	}
}

// ratioOf is ratio(r) when r was found (a result that was not has no order figures).
func ratioOf(r result, found bool, ratio func(result) (float64, bool)) (float64, bool) {
	if !found {
		return 0, false
	}
	return ratio(r)
}

// tally writes counts by key, largest first: "OUT_OF_STOCK 12, 500 3".
func tally(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] || m[keys[i]] == m[keys[j]] && keys[i] < keys[j] })
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// units writes an amount of the deployment currency: 100, 10.5.
func units(v float64) string {
	return strconv.FormatFloat(v, 'f', -1, 64)
}
