package app_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	paystripe "github.com/rewardsco/rewards/adapters/payments/stripe"
	"github.com/rewardsco/rewards/app"

	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/studio"
	fakevouchers "github.com/rewardsco/rewards/fakes/vouchers"
)

// The environments are separate money worlds: with a test key only, store purchases and
// partner orders are fulfilled by the built-in sandbox (SANDBOX- codes) and never reach the live
// voucher provider, not even to read stock or an order's status, while live ones do.
func TestTestEnvironmentNeverReachesTheLiveVoucherProvider(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := setupPartnerWorlds(t, "INR", time.Minute, true)
	// The setup synced the catalogue from the live provider; every call after it is the test
	// world's until the live purchase.
	synced := len(p.vouchers.Calls())
	reached := func() []fakevouchers.Call { return p.vouchers.Calls()[synced:] }

	// The store: a test player buys a gift card and a sandbox brand.
	s, g, coin := p.shop("Worlds")
	buy := func(env studio.Environment, brand string) orders.View {
		t.Helper()
		caller := studio.Caller{GameID: g.ID, StudioID: s.ID, Environment: env}
		created, err := p.m.Players.CreateWithUUID(ctx, caller, "buyer-"+string(env)+"-"+brand)
		require.NoError(t, err)
		_, _, err = p.m.Coins.Distribute(ctx, coins.Movement{GameID: g.ID, Environment: env, PlayerID: created.Player.ID,
			UserUUID: "buyer", CoinID: coin.ID, Amount: 1_000_000})
		require.NoError(t, err)
		list, _, err := p.m.Catalogue.List(ctx, catalogue.ListQuery{GameID: g.ID, CoinID: coin.ID, Brand: brand, Limit: 1})
		require.NoError(t, err)
		require.Len(t, list, 1, brand)
		r := list[0].Reward
		face := r.MinValue
		if len(r.Denominations) > 0 {
			face = r.Denominations[0]
		}
		v, _, err := p.m.Orders.Buy(ctx, orders.Purchase{Caller: caller, Player: created.Player, RewardID: r.ID, CoinID: coin.ID, Denomination: &face, Quantity: 1})
		require.NoError(t, err)
		return v
	}
	v := buy(studio.Test, "AMAZON")
	require.Equal(t, orders.Success, v.Status)
	require.Len(t, v.Codes, 1)
	require.True(t, strings.HasPrefix(v.Codes[0].Code, "SANDBOX-"), v.Codes[0].Code)
	require.Equal(t, orders.Failed, buy(studio.Test, "SANDBOX_FAIL").Status, "the sandbox honours SANDBOX_FAIL")
	// A slow order is pending at first: its status is read until the sandbox issues it.
	slowBuy := buy(studio.Test, "SANDBOX_SLOW")
	require.Eventually(t, func() bool {
		o, err := p.m.Orders.Get(ctx, slowBuy.ID)
		return err == nil && o.Status == orders.Success
	}, 20*time.Second, 100*time.Millisecond, "the sandbox issues SANDBOX_SLOW")
	require.Empty(t, reached(), "a test purchase reached the live voucher provider")

	// The partner API: a funded test wallet orders through the sandbox too.
	pg := p.game("WALLET", 0)
	require.Equal(t, 201, p.credit(pg, 100000, "fund").Status)
	tok := p.token(pg.key, "")
	placed := p.order(tok, orderBody("w-1", "AMAZON", 500, 2))
	require.Equal(t, 201, placed.Status, string(placed.Raw))
	o := data(placed)
	require.Equal(t, "SUCCESS", o["status"])
	for _, c := range o["codes"].([]any) {
		require.True(t, strings.HasPrefix(c.(map[string]any)["code"].(string), "SANDBOX-"), c)
	}
	slow := p.order(tok, orderBody("w-2", "SANDBOX_SLOW", firstValue(data(p.as(tok, "GET", "/partner/v1/gift-cards/brands/SANDBOX_SLOW", nil))), 1))
	require.Contains(t, []int{200, 201}, slow.Status, string(slow.Raw))
	p.await(tok, data(slow)["orderId"].(string), status("SUCCESS"))
	require.Empty(t, reached(), "a test partner order reached the live voucher provider")

	// Live: the live provider fulfils, with its own codes, after reading its stock.
	v = buy(studio.Live, "AMAZON")
	require.Equal(t, orders.Success, v.Status)
	require.False(t, strings.HasPrefix(v.Codes[0].Code, "SANDBOX-"), v.Codes[0].Code)
	require.Len(t, p.vouchers.Orders(), 1, "the live purchase is the live provider's only order")
	require.Equal(t, v.ID.String(), p.vouchers.Orders()[0].ExternalRefID)
	var stockReads, placements int
	for _, c := range reached() {
		switch {
		case c.Method == "GET" && strings.HasPrefix(c.Path, "/vouchers/stock/"):
			stockReads++
		case c.Method == "POST" && c.Path == "/vouchers/orders":
			placements++
		}
	}
	require.Positive(t, stockReads, "the live purchase read the live provider's stock: %v", reached())
	require.Equal(t, 1, placements, "%v", reached())
}

// The test environment's CASH orders use the built-in sandbox payment page when no test-mode
// credentials are set: its Pay confirms the order at once; the live provider never sees it.
func TestTestEnvironmentPaysOnTheSandboxPage(t *testing.T) {
	t.Parallel()
	p := setupPartnerWorlds(t, "USD", time.Minute, true)
	g := p.game("CASH", 0)
	tok := p.token(g.key, "")
	place := func(id string) map[string]any {
		r := p.order(tok, orderBody(id, "AMAZON", 25, 1))
		require.Equal(t, 201, r.Status, string(r.Raw))
		o := data(r)
		require.Equal(t, "PENDING_PAYMENT", o["status"])
		page := o["paymentSessionId"].(string)
		require.True(t, strings.HasPrefix(page, "https://rewards.example.com/sandbox/payments/sps_"), page)
		return o
	}
	act := func(o map[string]any, action string) response {
		path := strings.TrimPrefix(o["paymentSessionId"].(string), "https://rewards.example.com")
		return p.call("POST", path, "", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, "action="+action)
	}

	paid := place("cash-1")
	page := p.call("GET", strings.TrimPrefix(paid["paymentSessionId"].(string), "https://rewards.example.com"), "", nil, nil)
	require.Equal(t, 200, page.Status)
	require.Contains(t, string(page.Raw), "no money moves")
	r := act(paid, "pay")
	require.Equal(t, 200, r.Status, string(r.Raw))
	done := p.await(tok, paid["orderId"].(string), status("SUCCESS"))
	require.Equal(t, "PAID", done["paymentStatus"])
	require.True(t, strings.HasPrefix(done["codes"].([]any)[0].(map[string]any)["code"].(string), "SANDBOX-"))
	require.Equal(t, 409, act(paid, "pay").Status, "a paid session cannot be paid again")

	cancelled := place("cash-2")
	require.Equal(t, 200, act(cancelled, "cancel").Status)
	done = p.await(tok, cancelled["orderId"].(string), status("REFUNDED"))
	require.Equal(t, "EXPIRED", done["paymentStatus"])
	require.Equal(t, 400, act(cancelled, "steal").Status)
	require.Equal(t, 404, p.call("GET", "/sandbox/payments/sps_nope", "", nil, nil).Status)
	require.Zero(t, len(p.vouchers.Orders()), "a test order reached the live voucher provider")
}

// Both environments' provider credentials send events to the same route: an event counts only
// for an order of the environment whose secret verified it.
func TestPaymentEventsCountOnlyInTheirEnvironment(t *testing.T) {
	t.Parallel()
	p := setupPartnerWith(t, "USD", time.Minute, func(ext *app.External, fakesURL string) {
		// Test mode at the same fake, but with its own webhook secret, which the fake (signing
		// with the live one) does not have.
		ext.TestPayments = paystripe.New(paystripe.Config{SecretKey: "sk_test_other", WebhookSecret: "whsec_test_mode_secret", BaseURL: fakesURL + "/stripe"})
	})
	g := p.game("CASH", 0)
	ctx := context.Background()

	testTok := p.token(g.key, "")
	r := p.order(testTok, orderBody("ev-test", "AMAZON", 25, 1))
	require.Equal(t, 201, r.Status, string(r.Raw))
	testOrder := data(r)
	secret, err := p.m.Partner.IssueSecret(ctx, g.id, studio.Live)
	require.NoError(t, err)
	lt := p.call("POST", "/partner/v1/token", "live.localhost", nil, map[string]any{"client_id": g.live, "client_secret": secret})
	require.Equal(t, 200, lt.Status, string(lt.Raw))
	liveTok := data(lt)["access_token"].(string)
	r = p.call("POST", "/partner/v1/gift-cards/orders", "live.localhost", map[string]string{"Authorization": "Bearer " + liveTok}, orderBody("ev-live", "AMAZON", 25, 1))
	require.Equal(t, 201, r.Status, string(r.Raw))
	liveOrder := data(r)

	p.payer(testOrder, "pay", false)
	p.payer(liveOrder, "pay", false)
	// The fake signs both events with the live secret: the live order's counts (and finishes
	// it); the test order's verifies only as a live event and names no order.
	require.Eventually(t, func() bool {
		var n int
		err := p.pool.QueryRow(ctx, `SELECT count(*) FROM payment_events`).Scan(&n)
		return err == nil && n >= 2
	}, 20*time.Second, 100*time.Millisecond)
	rows, err := p.pool.Query(ctx, `SELECT environment, order_id::text FROM payment_events WHERE session_id <> ''`)
	require.NoError(t, err)
	events := map[string]string{}
	for rows.Next() {
		var env string
		var orderID *string
		require.NoError(t, rows.Scan(&env, &orderID))
		require.Equal(t, "live", env, "only the live secret verifies the fake's events")
		if orderID != nil {
			events[*orderID] = env
		}
	}
	require.NoError(t, rows.Err())
	require.Contains(t, events, liveOrder["orderId"].(string))
	require.NotContains(t, events, testOrder["orderId"].(string), "a live-verified event counted for a test order")
}

// A CASH order is fulfilled only when the provider's paid amount and currency are the order's:
// otherwise (underpaid, overpaid, another currency) it is FAILED (PAYMENT_MISMATCH) and the
// payment refunded.
func TestPaymentMismatchIsRefundedNotFulfilled(t *testing.T) {
	t.Parallel()
	p := setupPartnerWorlds(t, "USD", time.Minute, true)
	g := p.game("CASH", 0)
	tok := p.token(g.key, "")
	for i, tamper := range []string{`amount = amount - 1`, `amount = amount + 1`, `currency = 'EUR'`} {
		r := p.order(tok, orderBody(fmt.Sprintf("mm-%d", i), "AMAZON", 25, 1))
		require.Equal(t, 201, r.Status, string(r.Raw))
		o := data(r)
		page := strings.TrimPrefix(o["paymentSessionId"].(string), "https://rewards.example.com")
		// The provider reports another amount (or currency) than the order's.
		_, err := p.pool.Exec(context.Background(), `UPDATE sandbox_payment_sessions SET `+tamper+` WHERE order_id = $1`, o["orderId"])
		require.NoError(t, err)
		pay := p.call("POST", page, "", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, "action=pay")
		require.Equal(t, 200, pay.Status, string(pay.Raw))
		// Until it is fulfilled, or refunded.
		done := p.await(tok, o["orderId"].(string), func(o map[string]any) bool {
			return o["status"] == "SUCCESS" || o["paymentStatus"] == "REFUNDED"
		})
		require.Equal(t, "FAILED", done["status"], tamper)
		require.Equal(t, "PAYMENT_MISMATCH", done["failureReason"], tamper)
		require.Equal(t, "REFUNDED", done["paymentStatus"], tamper)
		require.Empty(t, done["codes"], tamper)
	}
}
