package e2e

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// ordersEnv points the service at the fake voucher provider in the fakes' container, answers a
// purchase after at most 1 s of waiting for the provider, polls unfinished orders every second,
// and lets webhooks reach the fake receiver.
func ordersEnv() map[string]string {
	env := map[string]string{
		"REWARDS_VOUCHER_BASE_URL": "http://fakes:9090/vouchers",
		// The fake stands for the provider's sandbox too, for its fault switches: these suites
		// buy in the test environment.
		"REWARDS_TEST_VOUCHER_BASE_URL": "http://fakes:9090/vouchers",
		"REWARDS_VOUCHER_WAIT":          "1s",
		"REWARDS_VOUCHER_POLL":          "1s",
		// A job whose service was killed mid-step is worked again after this (the least the
		// service allows, above the longest job timeout), not the default 2 minutes.
		"REWARDS_JOB_RESCUE_AFTER": "50s",
	}
	for k, v := range webhookEnv {
		env[k] = v
	}
	return env
}

// syncCatalogue imports the fake provider's catalogue (its sandbox brands included).
func (s *stack) syncCatalogue(t *testing.T) {
	t.Helper()
	r := s.admin("POST", "/admin/v1/catalogue/sync", nil)
	require.Equal(t, 200, r.Status, string(r.Raw))
}

// newShopper is a webhook tenant whose player holds coins.
func (s *stack) newShopper(t *testing.T, name string, coins int) webhookTenant {
	t.Helper()
	w := s.newWebhookTenant(t, name, nil)
	s.distribute(t, w, coins, map[string]any{"reason": "LEVEL_UP"})
	return w
}

// giftCard finds the synced FIXED gift card of a brand that offers face value value, as a player
// would: the store lists the brand, fetch shows the denominations with their coin prices. It
// returns the reward and the coin price of one card.
func (s *stack) giftCard(t *testing.T, w webhookTenant, brand string, value float64) (string, int64) {
	t.Helper()
	list := items(t, s.asPlayer(w.tenant, w.token, "GET", "/rewards?coinId="+w.CoinID+"&brand="+brand+"&limit=100", nil, "x-language", "en"))
	for _, m := range list {
		f := s.asPlayer(w.tenant, w.token, "GET", "/rewards/fetch/"+str(m["id"])+"?coinId="+w.CoinID, nil, "x-language", "en")
		require.Equal(t, 200, f.Status, string(f.Raw))
		denominations, _ := f.Body["denominations"].([]any)
		for _, d := range denominations {
			d := d.(map[string]any)
			if d["value"] == value {
				require.Equal(t, "GIFT_CARD", f.Body["type"], string(f.Raw))
				return str(m["id"]), int64(d["price"].(float64))
			}
		}
	}
	require.FailNow(t, "no gift card found", "brand %s has no synced reward with face value %v", brand, value)
	return "", 0
}

func (s *stack) purchase(t *testing.T, w webhookTenant, body map[string]any, headers ...string) response {
	t.Helper()
	return s.asPlayer(w.tenant, w.token, "POST", "/rewards/purchase", body, headers...)
}

// playerOrder reads one order as its player does (GET /player/orders/{id}).
func (s *stack) playerOrder(t *testing.T, w webhookTenant, id string) map[string]any {
	t.Helper()
	r := s.asPlayer(w.tenant, w.token, "GET", "/player/orders/"+id, nil, "x-language", "en")
	require.Equal(t, 200, r.Status, string(r.Raw))
	return r.Body
}

// awaitOrder polls the player's order until it has status, and returns it.
func (s *stack) awaitOrder(t *testing.T, w webhookTenant, id, status string, within time.Duration) map[string]any {
	t.Helper()
	start := time.Now()
	for {
		o := s.playerOrder(t, w, id)
		switch {
		case o["status"] == status:
			t.Logf("order %s reached %s after %s", id, status, time.Since(start).Round(100*time.Millisecond))
			return o
		case o["status"] == "SUCCESS" || o["status"] == "FAILED":
			require.FailNowf(t, "order ended otherwise", "order %s ended %v, not %s", id, o["status"], status)
		case time.Since(start) > within:
			require.FailNowf(t, "order not final in time", "order %s is still %v after %s; want %s", id, o["status"], within, status)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// balance is the player's balance of the tenant's coin (GET /player/funds).
func (s *stack) balance(t *testing.T, w webhookTenant) int64 {
	t.Helper()
	r := s.asPlayer(w.tenant, w.token, "GET", "/player/funds", nil)
	require.Equal(t, 200, r.Status, string(r.Raw))
	var funds []struct {
		CoinID  string `json:"coinId"`
		Balance int64  `json:"balance"`
	}
	require.NoError(t, json.Unmarshal(r.Raw, &funds), string(r.Raw))
	for _, f := range funds {
		if f.CoinID == w.CoinID {
			return f.Balance
		}
	}
	require.FailNow(t, "coin missing from /player/funds", string(r.Raw))
	return 0
}

// journal returns the player's journal entries that reference an order (GET /player/transactions).
func (s *stack) journal(t *testing.T, w webhookTenant, orderID string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, e := range items(t, s.asPlayer(w.tenant, w.token, "GET", "/player/transactions?limit=100", nil, "x-language", "en")) {
		if e["referenceId"] == orderID {
			out = append(out, e)
		}
	}
	return out
}

// transitions returns the statuses an order went through, from the operator's history.
func (s *stack) transitions(t *testing.T, orderID string) []string {
	t.Helper()
	r := s.admin("GET", "/admin/v1/orders/"+orderID, nil)
	require.Equal(t, 200, r.Status, string(r.Raw))
	var out []string
	for i, tr := range r.Body["transitions"].([]any) {
		tr := tr.(map[string]any)
		if i == 0 {
			require.Nil(t, tr["from"], "the first transition comes from nothing")
		}
		out = append(out, str(tr["to"]))
	}
	return out
}

// verify is what a studio's server asks: did this order succeed (GET /rewards/orders/{id}/verify)?
func (s *stack) verify(t *testing.T, key, orderID string) string {
	t.Helper()
	r := s.call(request{method: "GET", path: "/rewards/orders/" + orderID + "/verify", headers: map[string]string{"x-api-key": key}})
	require.Equal(t, 200, r.Status, string(r.Raw))
	return strings.TrimSpace(string(r.Raw))
}

// awaitEvent waits for the signed webhook of an event type about an order and returns it; it
// must arrive once.
func (s *stack) awaitEvent(t *testing.T, w webhookTenant, eventType, orderID string) eventBody {
	t.Helper()
	var found []eventBody
	require.Eventually(t, func() bool {
		found = nil
		for _, r := range s.received(t, w.channel) {
			e := requireVerified(t, r, w.secret)
			if e.EventType == eventType && e.ReferenceID == orderID {
				found = append(found, e)
			}
		}
		return len(found) > 0
	}, 15*time.Second, 100*time.Millisecond, "a %s webhook for order %s", eventType, orderID)
	require.Len(t, found, 1, "one %s webhook for order %s", eventType, orderID)
	return found[0]
}

// providerOrder is an order as the fake voucher provider holds it.
type providerOrder struct {
	ExternalRefID string `json:"externalRefID"`
	BrandKey      string `json:"brandKey"`
	Status        string `json:"status"`
	Placements    int    `json:"placements"`
	Rewards       []struct {
		VoucherID string `json:"voucherId"`
		Code      string `json:"code"`
		Pin       string `json:"pin"`
	} `json:"rewards"`
}

// providerOrders lists the fake provider's orders, of one reference when ref is set.
func (s *stack) providerOrders(t *testing.T, ref string) []providerOrder {
	t.Helper()
	res, err := http.Get(s.fakes.BaseURL + "/vouchers/orders?externalRefID=" + url.QueryEscape(ref))
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, 200, res.StatusCode)
	var out []providerOrder
	require.NoError(t, json.NewDecoder(res.Body).Decode(&out))
	return out
}

// voucherBehaviour tells the fake provider how to answer ({} resets).
func (s *stack) voucherBehaviour(t *testing.T, b string) {
	t.Helper()
	res, err := http.Post(s.fakes.BaseURL+"/vouchers/behaviour", "application/json", strings.NewReader(b))
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, 200, res.StatusCode)
}

// requireIssuedOnce checks that the provider holds one order for the reference, placed once, and
// that the codes the player sees are the ones it issued.
func (s *stack) requireIssuedOnce(t *testing.T, order map[string]any) providerOrder {
	t.Helper()
	id := str(order["orderId"])
	po := s.providerOrders(t, id)
	require.Len(t, po, 1, "the provider holds one order for reference %s", id)
	require.Equal(t, 1, po[0].Placements, "order %s was placed with the provider once", id)
	require.Equal(t, "COMPLETE", po[0].Status)
	var want, got []string
	for _, r := range po[0].Rewards {
		want = append(want, r.Code+"/"+r.Pin+"/"+r.VoucherID)
	}
	for _, c := range order["codes"].([]any) {
		c := c.(map[string]any)
		require.Equal(t, order["denomination"], c["value"])
		require.NotEmpty(t, c["expiry"])
		got = append(got, str(c["code"])+"/"+str(c["pin"])+"/"+str(c["providerVoucherId"]))
	}
	require.NotEmpty(t, want)
	slices.Sort(want)
	slices.Sort(got)
	require.Equal(t, want, got, "the order shows the codes the provider issued")
	return po[0]
}

// requireSettledOnce checks the books of a final order: one PURCHASE_DEBIT of its coins, a
// REFUND_CREDIT of them when it FAILED and none otherwise, and the balance that follows.
func (s *stack) requireSettledOnce(t *testing.T, w webhookTenant, order map[string]any, before int64) {
	t.Helper()
	id, spent := str(order["orderId"]), int64(order["coinsSpent"].(float64))
	var debits, refunds int
	for _, e := range s.journal(t, w, id) {
		require.Equal(t, float64(spent), e["amount"], "journal entry %v", e)
		switch {
		case e["type"] == "DEBIT" && e["reason"] == "PURCHASE_DEBIT":
			debits++
		case e["type"] == "CREDIT" && e["reason"] == "REFUND_CREDIT":
			refunds++
		default:
			require.Fail(t, "unexpected journal entry", "%v", e)
		}
	}
	require.Equal(t, 1, debits, "order %s debited once", id)
	switch order["status"] {
	case "SUCCESS":
		require.Equal(t, 0, refunds, "a successful order %s is not refunded", id)
		require.Equal(t, before-spent, s.balance(t, w), "the coins of order %s are spent once", id)
	case "FAILED":
		require.Equal(t, 1, refunds, "failed order %s refunded once", id)
		require.Equal(t, before, s.balance(t, w), "the coins of failed order %s are back", id)
	default:
		require.Fail(t, "order not final", "order %s is %v", id, order["status"])
	}
}

// requirePurchase checks the answer of a purchase of one card and returns its order.
func requirePurchase(t *testing.T, r response, w webhookTenant, rewardID, status string, value float64, price, before int64) map[string]any {
	t.Helper()
	require.Equal(t, 200, r.Status, string(r.Raw))
	o := r.Body
	require.Equal(t, status, o["status"], string(r.Raw))
	require.NotEmpty(t, o["orderId"])
	require.Equal(t, rewardID, o["rewardId"])
	require.Equal(t, "GIFT_CARD", o["type"])
	require.Equal(t, w.CoinID, o["coinId"])
	require.Equal(t, float64(price), o["coinsSpent"])
	require.Equal(t, value, o["denomination"])
	require.Equal(t, float64(1), o["quantity"])
	require.Equal(t, value, o["faceValue"])
	want := before - price
	if status == "FAILED" {
		want = before
	}
	require.Equal(t, float64(want), o["balance"], string(r.Raw))
	if status != "SUCCESS" {
		require.Empty(t, o["codes"], "no codes before SUCCESS")
	}
	return o
}

func TestOrders(t *testing.T) {
	t.Parallel()
	s := startStack(t, ordersEnv())
	s.syncCatalogue(t)

	t.Run("a gift card is bought: codes at once, coins debited with a webhook, listed, verified, its history recorded", func(t *testing.T) {
		w := s.newShopper(t, "Gift Shop", 20000)
		other := s.newTenant("Other Shop")
		rewardID, price := s.giftCard(t, w, "AMAZON", 500)
		require.Equal(t, int64(20000), s.balance(t, w))

		r := s.purchase(t, w, map[string]any{"rewardId": rewardID, "coinId": w.CoinID, "denomination": 500})
		o := requirePurchase(t, r, w, rewardID, "SUCCESS", 500, price, 20000)
		id := str(o["orderId"])
		require.Len(t, o["codes"], 1)
		s.requireIssuedOnce(t, o)
		require.Equal(t, 20000-price, s.balance(t, w), "the balance dropped by coinsSpent")

		e := s.awaitEvent(t, w, "COINS_DEBITED", id)
		require.Equal(t, "PURCHASE_DEBIT", e.Reason)
		require.Equal(t, -price, e.Delta)
		require.Equal(t, 20000-price, e.NewBalance)
		require.Equal(t, "hook-player", e.UserUUID)
		require.Equal(t, w.CoinID, e.CoinID)

		list := items(t, s.asPlayer(w.tenant, w.token, "GET", "/player/orders", nil, "x-language", "en"))
		require.Len(t, list, 1)
		require.Equal(t, id, list[0]["orderId"])
		require.Equal(t, "SUCCESS", list[0]["status"])
		require.Equal(t, o["codes"], list[0]["codes"], "the list shows the codes")
		require.Equal(t, o["codes"], s.playerOrder(t, w, id)["codes"])
		require.Empty(t, items(t, s.asPlayer(w.tenant, w.token, "GET", "/player/orders?rewardId=00000000-0000-4000-8000-000000000000", nil, "x-language", "en")))

		require.Equal(t, "true", s.verify(t, w.TestKey, id))
		require.Equal(t, "false", s.verify(t, other.TestKey, id), "another studio's key cannot verify the order")
		require.Equal(t, "false", s.verify(t, w.TestKey, "not-an-order"))

		require.Equal(t, []string{"INITIATED", "PROCESSING", "SUCCESS"}, s.transitions(t, id))
		s.requireSettledOnce(t, w, o, 20000)
	})

	t.Run("a refused gift card fails and gives the coins back", func(t *testing.T) {
		w := s.newShopper(t, "Refused Shop", 5000)
		rewardID, price := s.giftCard(t, w, "SANDBOX_FAIL", 100)

		r := s.purchase(t, w, map[string]any{"rewardId": rewardID, "coinId": w.CoinID, "denomination": 100})
		o := requirePurchase(t, r, w, rewardID, "FAILED", 100, price, 5000)
		id := str(o["orderId"])
		require.Equal(t, int64(5000), s.balance(t, w), "the coins are back")
		s.requireSettledOnce(t, w, o, 5000)

		d := s.awaitEvent(t, w, "COINS_DEBITED", id)
		require.Equal(t, -price, d.Delta)
		e := s.awaitEvent(t, w, "COINS_REFUNDED", id)
		require.Equal(t, "REFUND_CREDIT", e.Reason)
		require.Equal(t, price, e.Delta)
		require.Equal(t, int64(5000), e.NewBalance)

		require.Equal(t, "false", s.verify(t, w.TestKey, id), "a FAILED order does not verify")
		require.Equal(t, []string{"INITIATED", "PROCESSING", "FAILED"}, s.transitions(t, id))
		po := s.providerOrders(t, id)
		require.Len(t, po, 1)
		require.Equal(t, "FAILED", po[0].Status)
	})

	t.Run("slow gift cards answer TIMEOUT, then succeed, or fail and give the coins back", func(t *testing.T) {
		w := s.newShopper(t, "Slow Shop", 10000)
		slowID, slowPrice := s.giftCard(t, w, "SANDBOX_SLOW", 100)
		failID, failPrice := s.giftCard(t, w, "SANDBOX_SLOW_FAIL", 500)

		// Both are bought before either is awaited, so that their 10 s at the provider overlap.
		slow := requirePurchase(t, s.purchase(t, w, map[string]any{"rewardId": slowID, "coinId": w.CoinID, "denomination": 100}),
			w, slowID, "TIMEOUT", 100, slowPrice, 10000)
		slowFail := requirePurchase(t, s.purchase(t, w, map[string]any{"rewardId": failID, "coinId": w.CoinID, "denomination": 500}),
			w, failID, "TIMEOUT", 500, failPrice, 10000-slowPrice)
		require.Equal(t, 10000-slowPrice-failPrice, s.balance(t, w), "both are paid for while they wait")
		require.Equal(t, "false", s.verify(t, w.TestKey, str(slow["orderId"])), "a TIMEOUT order does not verify yet")

		done := s.awaitOrder(t, w, str(slow["orderId"]), "SUCCESS", 40*time.Second)
		require.Len(t, done["codes"], 1)
		s.requireIssuedOnce(t, done)
		require.Equal(t, "true", s.verify(t, w.TestKey, str(slow["orderId"])))
		require.Equal(t, []string{"INITIATED", "PROCESSING", "TIMEOUT", "SUCCESS"}, s.transitions(t, str(slow["orderId"])))

		failed := s.awaitOrder(t, w, str(slowFail["orderId"]), "FAILED", 40*time.Second)
		require.Empty(t, failed["codes"])
		require.Equal(t, []string{"INITIATED", "PROCESSING", "TIMEOUT", "FAILED"}, s.transitions(t, str(slowFail["orderId"])))
		e := s.awaitEvent(t, w, "COINS_REFUNDED", str(slowFail["orderId"]))
		require.Equal(t, failPrice, e.Delta)
		require.Equal(t, "REFUND_CREDIT", e.Reason)

		// One spent, one refunded.
		s.requireSettledOnce(t, w, done, 10000)
		require.Equal(t, 10000-slowPrice, s.balance(t, w))
		var refunds int
		for _, j := range s.journal(t, w, str(slowFail["orderId"])) {
			if j["reason"] == "REFUND_CREDIT" {
				refunds++
			}
		}
		require.Equal(t, 1, refunds, "the slow refusal is refunded once")
	})

	t.Run("a coupon with a cooldown: the second purchase waits; a replay spends nothing", func(t *testing.T) {
		w := s.newShopper(t, "Coupon Shop", 10000)
		r := s.admin("PUT", "/admin/v1/catalogue/brands/COOL_CAFE", map[string]any{"name": "Cool Cafe", "categories": []string{}})
		require.Equal(t, 201, r.Status, string(r.Raw))
		r = s.admin("POST", "/admin/v1/catalogue/rewards", map[string]any{"type": "COUPON", "brandCode": "COOL_CAFE",
			"name": "Free coffee", "mrp": 200, "sellingPrice": 150, "purchaseCooldown": 3600})
		require.Equal(t, 201, r.Status, string(r.Raw))
		coupon := str(r.Body["id"])
		r = s.admin("POST", "/admin/v1/catalogue/rewards/"+coupon+"/codes", map[string]any{"codes": []map[string]any{
			{"code": "COFFEE-1", "pin": "1111"}, {"code": "COFFEE-2", "pin": "2222"}}})
		require.Equal(t, 201, r.Status, string(r.Raw))

		body := map[string]any{"rewardId": coupon, "coinId": w.CoinID}
		first := s.purchase(t, w, body, "x-idempotency-key", "coffee-1")
		require.Equal(t, 200, first.Status, string(first.Raw))
		require.Equal(t, "SUCCESS", first.Body["status"])
		require.Equal(t, "COUPON", first.Body["type"])
		require.Equal(t, float64(1500), first.Body["coinsSpent"], "ceil(150 × 10)")
		require.Equal(t, float64(200), first.Body["faceValue"])
		codes := first.Body["codes"].([]any)
		require.Len(t, codes, 1)
		require.Contains(t, []string{"COFFEE-1", "COFFEE-2"}, codes[0].(map[string]any)["code"], "a code of the pool")
		require.Equal(t, int64(8500), s.balance(t, w))
		require.Equal(t, []string{"INITIATED", "SUCCESS"}, s.transitions(t, str(first.Body["orderId"])))

		replay := s.purchase(t, w, body, "x-idempotency-key", "coffee-1")
		require.Equal(t, 200, replay.Status, string(replay.Raw))
		require.Equal(t, "true", replay.Header.Get("x-idempotent-replay"))
		require.Equal(t, first.Body["orderId"], replay.Body["orderId"], "the replay is the same order")
		require.Equal(t, first.Body["codes"], replay.Body["codes"])
		require.Equal(t, int64(8500), s.balance(t, w), "a replay spends nothing")

		requireError(t, s.purchase(t, w, map[string]any{"rewardId": coupon, "coinId": w.CoinID, "quantity": 2},
			"x-idempotency-key", "coffee-1"), 422, "IDEMPOTENCY_KEY_REUSED")

		again := s.purchase(t, w, body, "x-idempotency-key", "coffee-2")
		requireError(t, again, 400, "PURCHASE_COOLDOWN")
		retry, err := strconv.Atoi(again.Header.Get("Retry-After"))
		require.NoError(t, err, "Retry-After %q", again.Header.Get("Retry-After"))
		require.InDelta(t, 3600, retry, 60, "Retry-After says about an hour")
		requireError(t, s.purchase(t, w, body), 400, "PURCHASE_COOLDOWN")
		require.Equal(t, int64(8500), s.balance(t, w), "a refusal takes no coins")

		f := s.asPlayer(w.tenant, w.token, "GET", "/rewards/fetch/"+coupon+"?coinId="+w.CoinID, nil, "x-language", "en")
		require.Equal(t, 200, f.Status, string(f.Raw))
		require.NotNil(t, f.Body["nextPurchaseAt"], "fetch tells the player when they may buy again")
		list := items(t, s.asPlayer(w.tenant, w.token, "GET", "/player/orders?rewardId="+coupon, nil, "x-language", "en"))
		require.Len(t, list, 1, "one order, however many tries")
	})

	t.Run("out of stock takes no coins", func(t *testing.T) {
		w := s.newShopper(t, "Empty Shop", 5000)
		rewardID, _ := s.giftCard(t, w, "SANDBOX_NO_STOCK", 100)
		before := len(s.providerOrders(t, ""))
		requireError(t, s.purchase(t, w, map[string]any{"rewardId": rewardID, "coinId": w.CoinID, "denomination": 100}), 400, "OUT_OF_STOCK")
		require.Equal(t, int64(5000), s.balance(t, w), "coins unchanged")
		require.Empty(t, items(t, s.asPlayer(w.tenant, w.token, "GET", "/player/orders", nil, "x-language", "en")), "no order")
		require.Len(t, s.providerOrders(t, ""), before, "nothing sent to the provider")
	})

	t.Run("a provider outage refuses the purchase without taking coins; the same key works once it is back", func(t *testing.T) {
		w := s.newShopper(t, "Outage Shop", 20000)
		rewardID, price := s.giftCard(t, w, "AMAZON", 250)
		t.Cleanup(func() { s.voucherBehaviour(t, `{}`) })
		s.voucherBehaviour(t, `{"status":503}`)
		body := map[string]any{"rewardId": rewardID, "coinId": w.CoinID, "denomination": 250}
		r := s.purchase(t, w, body, "x-idempotency-key", "outage-1")
		requireError(t, r, 502, "VOUCHER_PROVIDER_UNAVAILABLE")
		require.Empty(t, r.Header.Get("x-idempotent-replay"))
		require.Equal(t, int64(20000), s.balance(t, w), "coins unchanged")
		require.Empty(t, items(t, s.asPlayer(w.tenant, w.token, "GET", "/player/orders", nil, "x-language", "en")), "no order")

		s.voucherBehaviour(t, `{}`)
		r = s.purchase(t, w, body, "x-idempotency-key", "outage-1")
		o := requirePurchase(t, r, w, rewardID, "SUCCESS", 250, price, 20000)
		require.Empty(t, r.Header.Get("x-idempotent-replay"), "the outage was not kept as the key's outcome")
		s.requireIssuedOnce(t, o)
		s.requireSettledOnce(t, w, o, 20000)
	})
}

// orderStatus reads an order's status from the database: while the service is down, only the
// database knows it.
func orderStatus(t *testing.T, db *sql.DB, id string) string {
	t.Helper()
	var status string
	require.NoError(t, db.QueryRow(`SELECT status FROM orders WHERE id = $1`, id).Scan(&status))
	return status
}

// awaitJobWaiting waits until the order's fulfilment job has run at least once and waits in the
// queue for its next step, not due for a while: a SIGKILL then finds no step in flight, and the
// restarted service resumes the job at once. (A kill during a step is the other case: River
// works a job whose instance died again only after RescueStuckJobsAfter, 2 minutes.)
func awaitJobWaiting(t *testing.T, db *sql.DB, orderID string) {
	t.Helper()
	require.Eventually(t, func() bool {
		var n int
		err := db.QueryRow(`SELECT count(*) FROM river_job WHERE kind = 'fulfil_order' AND args->>'order_id' = $1
			AND state IN ('available', 'scheduled') AND scheduled_at > now() + interval '400 milliseconds'
			AND coalesce((metadata->>'snoozes')::int, 0) >= 1`, orderID).Scan(&n)
		return err == nil && n == 1
	}, 30*time.Second, 25*time.Millisecond, "the fulfilment job of order %s should wait for its next step", orderID)
}

// Each case kills the service (SIGKILL) in one state of the saga and checks that the restarted
// service finishes the order: final, the coins debited once (and refunded once if it failed),
// and the provider's reference issued at most once, with the codes the player sees.
func TestOrdersSurviveAKilledService(t *testing.T) {
	t.Parallel()
	s := startStack(t, ordersEnv())
	s.syncCatalogue(t)
	db := s.pg.DB(s.ctx)
	reset := func(t *testing.T) { s.voucherBehaviour(t, `{}`) }

	t.Run("debited, but the provider never got the order", func(t *testing.T) {
		w := s.newShopper(t, "Never Sent", 20000)
		rewardID, price := s.giftCard(t, w, "AMAZON", 500)
		t.Cleanup(func() { reset(t) })
		// The stock check must pass and the order must never reach the provider. The fake
		// decides a request's fate when it arrives: every answer is held 3 s, so the purchase's
		// stock check (its first call) is held; while it is, every later request is set to be
		// refused 503. The stock check then passes, the coins are debited, the order call is
		// refused, and the purchase answers TIMEOUT after its 1 s wait.
		s.voucherBehaviour(t, `{"stallMs":3000}`)
		answer := make(chan response, 1)
		go func() {
			answer <- s.purchase(t, w, map[string]any{"rewardId": rewardID, "coinId": w.CoinID, "denomination": 500})
		}()
		time.Sleep(1500 * time.Millisecond) // the stock check has arrived and is held
		s.voucherBehaviour(t, `{"status":503}`)
		o := requirePurchase(t, <-answer, w, rewardID, "TIMEOUT", 500, price, 20000)
		id := str(o["orderId"])

		awaitJobWaiting(t, db, id) // it asked the provider, was refused, and waits to ask again
		require.Empty(t, s.providerOrders(t, id), "the provider never got the order")
		require.Equal(t, 20000-price, s.balance(t, w), "the coins are debited")
		s.svc.Kill(s.ctx)
		require.Equal(t, "TIMEOUT", orderStatus(t, db, id))
		reset(t)
		s.svc.Start(s.ctx)

		done := s.awaitOrder(t, w, id, "SUCCESS", 60*time.Second)
		s.requireIssuedOnce(t, done)
		s.requireSettledOnce(t, w, done, 20000)
		require.Equal(t, []string{"INITIATED", "PROCESSING", "TIMEOUT", "SUCCESS"}, s.transitions(t, id))
	})

	t.Run("killed while the provider holds the order call", func(t *testing.T) {
		w := s.newShopper(t, "Held Call", 20000)
		rewardID, price := s.giftCard(t, w, "AMAZON", 1000)
		t.Cleanup(func() { reset(t) })
		// Every answer is held 3 s. The purchase's stock check passes after 3 s, then it places
		// the order: the provider creates it at once and holds the answer for 3 s more; the
		// purchase answers TIMEOUT after its 1 s wait. While the provider still holds the call,
		// the service dies.
		s.voucherBehaviour(t, `{"stallMs":3000}`)
		o := requirePurchase(t, s.purchase(t, w, map[string]any{"rewardId": rewardID, "coinId": w.CoinID, "denomination": 1000}),
			w, rewardID, "TIMEOUT", 1000, price, 20000)
		id := str(o["orderId"])
		require.Eventually(t, func() bool { return len(s.providerOrders(t, id)) == 1 }, 30*time.Second, 25*time.Millisecond,
			"the job places order %s with the provider", id)
		s.svc.Kill(s.ctx)
		killed := time.Now()
		require.Equal(t, "TIMEOUT", orderStatus(t, db, id), "the service died before it heard the provider's answer")
		po := s.providerOrders(t, id)
		require.Equal(t, "COMPLETE", po[0].Status)
		require.Equal(t, 1, po[0].Placements)
		reset(t)
		s.svc.Start(s.ctx)

		// The order's job runs after the restart (or, had it been mid-step when the service died,
		// once REWARDS_JOB_RESCUE_AFTER has passed), and reads the order the provider issued
		// instead of placing another.
		done := s.awaitOrder(t, w, id, "SUCCESS", 4*time.Minute)
		t.Logf("order %s finished %s after the kill", id, time.Since(killed).Round(time.Second))
		got := s.requireIssuedOnce(t, done)
		require.Equal(t, po[0].Rewards, got.Rewards, "the codes the provider issued before the kill")
		s.requireSettledOnce(t, w, done, 20000)
		require.Equal(t, []string{"INITIATED", "PROCESSING", "TIMEOUT", "SUCCESS"}, s.transitions(t, id))
	})

	t.Run("killed within the purchase's wait, before the order had a job", func(t *testing.T) {
		w := s.newShopper(t, "Orphan", 20000)
		rewardID, price := s.giftCard(t, w, "AMAZON", 250)
		t.Cleanup(func() { reset(t) })
		// Every answer is held 3 s: the order is stored PROCESSING (with no job: its purchase
		// sends it and would hand it to a job only once its 1 s wait is over), and the service
		// dies while its order call is held, before the wait ends. The purchase never answers.
		s.voucherBehaviour(t, `{"stallMs":3000}`)
		go func() {
			body := strings.NewReader(fmt.Sprintf(`{"rewardId":%q,"coinId":%q,"denomination":250}`, rewardID, w.CoinID))
			req, err := http.NewRequestWithContext(s.ctx, "POST", s.svc.BaseURL+"/rewards/purchase", body)
			if err != nil {
				return
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("x-api-key", w.TestKey)
			req.Header.Set("Authorization", "Bearer "+w.token)
			if res, err := http.DefaultClient.Do(req); err == nil {
				res.Body.Close()
			}
		}()
		var id string
		require.Eventually(t, func() bool {
			return db.QueryRow(`SELECT id::text FROM orders WHERE coin_id = $1 AND status = 'PROCESSING'`, w.CoinID).Scan(&id) == nil
		}, 30*time.Second, 5*time.Millisecond, "the purchase stores its order PROCESSING")
		s.svc.Kill(s.ctx)
		var jobs int
		require.NoError(t, db.QueryRow(`SELECT count(*) FROM river_job WHERE kind = 'fulfil_order' AND args->>'order_id' = $1`, id).Scan(&jobs))
		require.Zero(t, jobs, "the service died before it handed the order to a job")
		require.Equal(t, "PROCESSING", orderStatus(t, db, id))
		var spent int64
		require.NoError(t, db.QueryRow(`SELECT coins_spent FROM orders WHERE id = $1`, id).Scan(&spent))
		require.Equal(t, price, spent, "the coins are debited")
		reset(t)
		s.svc.Start(s.ctx)

		// The leader's recovery finds the order without a job once its wait is over, and its job
		// reads the order the provider got (or places it: the reference makes that safe).
		done := s.awaitOrder(t, w, id, "SUCCESS", 60*time.Second)
		require.Equal(t, rewardID, done["rewardId"])
		s.requireIssuedOnce(t, done)
		s.requireSettledOnce(t, w, done, 20000)
		require.NoError(t, db.QueryRow(`SELECT count(*) FROM river_job WHERE kind = 'fulfil_order' AND args->>'order_id' = $1`, id).Scan(&jobs))
		require.Equal(t, 1, jobs, "one job, queued by the recovery")
	})

	t.Run("killed while the order waits to be polled", func(t *testing.T) {
		w := s.newShopper(t, "Slow Poll", 5000)
		rewardID, price := s.giftCard(t, w, "SANDBOX_SLOW", 100)
		o := requirePurchase(t, s.purchase(t, w, map[string]any{"rewardId": rewardID, "coinId": w.CoinID, "denomination": 100}),
			w, rewardID, "TIMEOUT", 100, price, 5000)
		id := str(o["orderId"])
		awaitJobWaiting(t, db, id) // it polled the pending order once and waits to poll again
		po := s.providerOrders(t, id)
		require.Len(t, po, 1)
		require.Equal(t, "PENDING", po[0].Status, "killed while the provider still works on it")
		s.svc.Kill(s.ctx)
		require.Equal(t, "TIMEOUT", orderStatus(t, db, id))
		s.svc.Start(s.ctx)

		done := s.awaitOrder(t, w, id, "SUCCESS", 60*time.Second)
		s.requireIssuedOnce(t, done)
		s.requireSettledOnce(t, w, done, 5000)
		require.Equal(t, []string{"INITIATED", "PROCESSING", "TIMEOUT", "SUCCESS"}, s.transitions(t, id))
	})

	// The provider still says pending past the orders' deadline; the orders' jobs ask again
	// rather than refund, the service dies while they wait, and the restarted service delivers
	// the card the provider issues late, or refunds the order it refuses, once.
	t.Run("killed while orders past their deadline wait for the provider", func(t *testing.T) {
		late := startStack(t, lateEnv())
		late.syncCatalogue(t)
		lateDB := late.pg.DB(late.ctx)
		type lateOrder struct {
			w      webhookTenant
			id     string
			status string // the final status the provider's answer makes
		}
		type buy struct {
			w          webhookTenant
			rewardID   string
			price      int64
			finalState string
		}
		var buys []buy
		for _, c := range []struct{ brand, status string }{{"SANDBOX_SLOW", "SUCCESS"}, {"SANDBOX_SLOW_FAIL", "FAILED"}} {
			w := late.newShopper(t, "Late "+c.brand, 5000)
			rewardID, price := late.giftCard(t, w, c.brand, 100)
			buys = append(buys, buy{w, rewardID, price, c.status})
		}
		// Bought one after the other, so that their jobs' waits overlap.
		var placed []lateOrder
		for _, b := range buys {
			o := requirePurchase(t, late.purchase(t, b.w, map[string]any{"rewardId": b.rewardID, "coinId": b.w.CoinID, "denomination": 100}),
				b.w, b.rewardID, "TIMEOUT", 100, b.price, 5000)
			placed = append(placed, lateOrder{w: b.w, id: str(o["orderId"]), status: b.finalState})
		}
		awaitLateJobsWaiting(t, lateDB, placed[0].id, placed[1].id)
		for _, o := range placed {
			po := late.providerOrders(t, o.id)
			require.Len(t, po, 1)
			require.Equal(t, "PENDING", po[0].Status, "killed while the provider still works on order %s", o.id)
		}
		late.svc.Kill(late.ctx)
		killed := time.Now()
		for _, o := range placed {
			var lateBy float64
			var refunded bool
			require.NoError(t, lateDB.QueryRow(`SELECT extract(epoch FROM now() - deadline_at), refund_tx_id IS NOT NULL FROM orders WHERE id = $1`,
				o.id).Scan(&lateBy, &refunded))
			require.Equal(t, "TIMEOUT", orderStatus(t, lateDB, o.id))
			require.False(t, refunded, "order %s is not refunded on its deadline alone", o.id)
			t.Logf("order %s killed %.1f s past its deadline, still TIMEOUT", o.id, lateBy)
		}
		late.svc.Start(late.ctx)

		for _, o := range placed {
			done := late.awaitOrder(t, o.w, o.id, o.status, 2*time.Minute)
			t.Logf("order %s %s %s after the kill", o.id, o.status, time.Since(killed).Round(100*time.Millisecond))
			late.requireSettledOnce(t, o.w, done, 5000)
			require.Equal(t, []string{"INITIATED", "PROCESSING", "TIMEOUT", o.status}, late.transitions(t, o.id))
			if o.status == "SUCCESS" {
				late.requireIssuedOnce(t, done)
				continue
			}
			po := late.providerOrders(t, o.id)
			require.Len(t, po, 1)
			require.Equal(t, "FAILED", po[0].Status)
			require.Equal(t, 1, po[0].Placements)
			r := late.admin("GET", "/admin/v1/orders/"+o.id, nil)
			require.Equal(t, 200, r.Status, string(r.Raw))
			require.Equal(t, "refused by the voucher provider (SANDBOX_SLOW_FAIL)", r.Body["failureReason"], "refunded on the provider's refusal")
		}
	})
}

// lateEnv is ordersEnv with a 2 s order deadline: the fake provider's sandbox brands stay
// pending 10 s, so their orders are late for 8 s before the provider answers.
func lateEnv() map[string]string {
	env := ordersEnv()
	env["REWARDS_VOUCHER_DEADLINE"] = "2s"
	return env
}

// awaitLateJobsWaiting waits until the fulfilment jobs of orders have each asked the provider
// past its order's deadline and all wait in the queue at once for their next ask, not due for at
// least a second (as awaitJobWaiting: a kill then finds no step in flight), the orders still
// TIMEOUT; an order failed meanwhile fails the test at once.
func awaitLateJobsWaiting(t *testing.T, db *sql.DB, orderIDs ...string) {
	t.Helper()
	start := time.Now()
	for {
		waiting := 0
		for _, id := range orderIDs {
			var status string
			var ok bool
			require.NoError(t, db.QueryRow(`SELECT o.status, EXISTS (SELECT 1 FROM river_job j WHERE j.kind = 'fulfil_order'
					AND j.args->>'order_id' = o.id::text AND j.state IN ('available', 'scheduled')
					AND j.attempted_at > o.deadline_at AND j.scheduled_at > now() + interval '1 second')
				FROM orders o WHERE o.id = $1`, id).Scan(&status, &ok))
			require.Equal(t, "TIMEOUT", status, "order %s past its deadline, the provider still pending", id)
			if ok {
				waiting++
			}
		}
		if waiting == len(orderIDs) {
			t.Logf("the jobs of %d orders wait past their deadline after %s", waiting, time.Since(start).Round(100*time.Millisecond))
			return
		}
		require.Less(t, time.Since(start), 30*time.Second, "the jobs of orders %v should ask past their deadline and wait", orderIDs)
		time.Sleep(25 * time.Millisecond)
	}
}
