package app_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/webhookhttp"
	"github.com/rewardsco/rewards/app"
	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/webhooks"
)

// setupHookedPartner is setupPartner with webhooks delivered over loopback HTTP, retried within
// milliseconds.
func setupHookedPartner(t *testing.T) *partnerAPI {
	t.Helper()
	return setupPartnerWith(t, "INR", time.Minute, func(ext *app.External, _ string) {
		ext.WebhookTransport = webhookhttp.New(webhookhttp.Options{AllowHTTP: true, AllowPrivate: true})
		ext.WebhookRetryDelays = []time.Duration{time.Millisecond, time.Millisecond, time.Millisecond, time.Millisecond}
	})
}

// hook configures a webhook of the studio of game g (test environment) for events, to rc.
func (p *partnerAPI) hook(g partnerGame, rc *receiver, events ...string) webhooks.Config {
	p.t.Helper()
	ctx := context.Background()
	game, err := p.m.Studios.GetGame(ctx, g.id)
	require.NoError(p.t, err)
	url := rc.srv.URL + "/hook"
	cfg, _, err := p.m.Webhooks.Configure(ctx, webhooks.Scope{StudioID: game.StudioID, Environment: studio.Test},
		webhooks.Change{URL: &url, SubscribedEvents: &events})
	require.NoError(p.t, err)
	return cfg
}

// walletOrder places a WALLET order of one AMAZON card for g and returns it once SUCCESS.
func (p *partnerAPI) walletOrder(g partnerGame, clientOrderID string) map[string]any {
	p.t.Helper()
	require.Equal(p.t, 201, p.credit(g, 10000, "wire-"+clientOrderID).Status)
	tok := p.token(g.key, "")
	brands := p.as(tok, "GET", "/partner/v1/gift-cards/brands?search=amaz", nil)
	require.Equal(p.t, 200, brands.Status, string(brands.Raw))
	d := firstValue(data(brands)["items"].([]any)[0].(map[string]any))
	placed := p.order(tok, orderBody(clientOrderID, "AMAZON", d, 1))
	require.Equal(p.t, 201, placed.Status, string(placed.Raw))
	return p.await(tok, data(placed)["orderId"].(string), status("SUCCESS"))
}

// TestWebhookOrderEvents: a store coupon order that succeeds, a store gift card the provider
// refuses (failed, and its coins refunded) and a partner WALLET order each send their order
// events, once, with the bodies, headers and signature the 3.1 document's webhooks section
// describes; a studio that does not subscribe to them gets none, and none is stored for it.
func TestWebhookOrderEvents(t *testing.T) {
	t.Parallel()
	p := setupHookedPartner(t)
	ctx := context.Background()
	g := p.game("WALLET", 2.5)
	rc := newReceiver(t, http.StatusOK)
	cfg := p.hook(g, rc, webhooks.OrderEventTypes...)
	rc.set(http.StatusOK, cfg.Secret) // 401 to anything not signed with the configuration's secret

	// The store: a player of the same game with coins, a coupon, and a gift card that fails.
	game, err := p.m.Studios.GetGame(ctx, g.id)
	require.NoError(t, err)
	caller := studio.Caller{GameID: g.id, StudioID: game.StudioID, Environment: studio.Test}
	coin, err := p.m.Coins.CreateCoin(ctx, coins.Coin{GameID: g.id, Name: "Gems", ImageURL: "https://cdn.example.com/g.png", CoinsPerUnit: 1})
	require.NoError(t, err)
	created, err := p.m.Players.CreateWithUUID(ctx, caller, "buyer")
	require.NoError(t, err)
	player := created.Player
	_, _, err = p.m.Coins.Distribute(ctx, coins.Movement{GameID: g.id, Environment: studio.Test, PlayerID: player.ID,
		UserUUID: "buyer", CoinID: coin.ID, Amount: 100_000})
	require.NoError(t, err)
	_, err = p.m.Catalogue.PutBrand(ctx, catalogue.Brand{Code: "HOUSE", Name: "House", IsActive: true})
	require.NoError(t, err)
	coupon, err := p.m.Catalogue.CreateReward(ctx, catalogue.NewReward{Reward: catalogue.Reward{Type: catalogue.Coupon, BrandCode: "HOUSE",
		Name: "House coupon", IsActive: true, MRP: money.Amount(500_00), SellingPrice: money.Amount(300_00)}})
	require.NoError(t, err)
	_, _, err = p.m.Catalogue.AddCodes(ctx, coupon.ID, []catalogue.Code{{Code: "HOUSE-1"}})
	require.NoError(t, err)
	require.NoError(t, p.m.CatalogueReads.Refresh(ctx))
	bought, _, err := p.m.Orders.Buy(ctx, orders.Purchase{Caller: caller, Player: player, RewardID: coupon.ID, CoinID: coin.ID})
	require.NoError(t, err)
	require.Equal(t, orders.Success, bought.Status)

	q := catalogue.ListQuery{GameID: g.id, CoinID: coin.ID}
	list, _, err := p.m.Catalogue.List(ctx, catalogue.ListQuery{GameID: g.id, CoinID: coin.ID, Brand: "SANDBOX_FAIL", Limit: 1})
	require.NoError(t, err)
	require.Len(t, list, 1)
	d, err := p.m.Catalogue.Fetch(ctx, q, list[0].Reward.ID, player.ID)
	require.NoError(t, err)
	face := d.Reward.MinValue
	if len(d.Faces) > 0 {
		face = d.Faces[0].Value
	}
	refused, _, err := p.m.Orders.Buy(ctx, orders.Purchase{Caller: caller, Player: player, RewardID: list[0].Reward.ID, CoinID: coin.ID, Denomination: &face})
	require.NoError(t, err)

	partnerOrder := p.walletOrder(g, "o-1")

	// Not subscribed: another studio's configuration of coin events only.
	g2 := p.game("WALLET", 0)
	rc2 := newReceiver(t, http.StatusOK)
	cfg2 := p.hook(g2, rc2, "COINS_CREDITED")
	quiet := p.walletOrder(g2, "o-2")

	type key struct{ order, typ string }
	bodies := map[key]map[string]any{}
	var hits []hit
	require.Eventually(t, func() bool {
		hits = rc.got()
		return len(hits) >= 4
	}, 60*time.Second, 50*time.Millisecond, "waiting for 4 order events")
	time.Sleep(300 * time.Millisecond) // time for an event too many to arrive
	hits = rc.got()
	require.Len(t, hits, 4, "each event once")
	for _, h := range hits {
		require.Equal(t, http.StatusOK, h.answered, "signed with the configuration's secret: %s", h.body)
		var b map[string]any
		require.NoError(t, json.Unmarshal(h.body, &b))
		require.Equal(t, h.eventID, b["event_id"])
		k := key{b["order_id"].(string), b["event_type"].(string)}
		require.NotContains(t, bodies, k)
		bodies[k] = b
	}

	// The coupon: delivered at purchase.
	sb := bodies[key{bought.ID.String(), "ORDER_SUCCEEDED"}]
	require.NotNil(t, sb, "%v", slices.Collect(maps.Keys(bodies)))
	require.Equal(t, map[string]any{"event_id": sb["event_id"], "event_type": "ORDER_SUCCEEDED", "timestamp": sb["timestamp"],
		"app_id": g.id.String(), "environment": "DEVELOPMENT", "order_id": bought.ID.String(), "channel": "STORE", "status": "SUCCESS",
		"payment_status": nil, "user_uuid": "buyer", "reward_id": coupon.ID.String(), "reward_type": "COUPON", "quantity": float64(1),
		"denomination": float64(500), "face_value": float64(500), "coin_id": coin.ID.String(), "coins_spent": float64(bought.CoinsSpent),
		"client_order_id": nil, "settlement": nil, "amount": nil, "currency": nil, "brand_code": nil, "failure_reason": nil,
		"created_at": bought.CreatedAt.UTC().Format("2006-01-02T15:04:05.000000Z")}, sb)
	at, err := time.Parse(time.RFC3339Nano, sb["timestamp"].(string))
	require.NoError(t, err)
	require.WithinDuration(t, time.Now(), at, time.Minute)

	// The gift card the provider refused: failed, and its coins given back.
	fb, rb := bodies[key{refused.ID.String(), "ORDER_FAILED"}], bodies[key{refused.ID.String(), "ORDER_REFUNDED"}]
	require.NotNil(t, fb)
	require.NotNil(t, rb)
	stored, err := p.m.Orders.Get(ctx, refused.ID)
	require.NoError(t, err)
	require.Equal(t, orders.Failed, stored.Status)
	require.NotNil(t, stored.RefundTxID)
	for _, b := range []map[string]any{fb, rb} {
		require.Equal(t, "FAILED", b["status"])
		require.Equal(t, "GIFT_CARD", b["reward_type"])
		require.Equal(t, "refused by the voucher provider (SANDBOX_FAIL)", b["failure_reason"])
		require.Equal(t, float64(stored.CoinsSpent), b["coins_spent"])
		require.Equal(t, face.Units(), b["denomination"])
	}
	require.NotEqual(t, fb["event_id"], rb["event_id"])

	// The partner order.
	pb := bodies[key{partnerOrder["orderId"].(string), "ORDER_SUCCEEDED"}]
	require.NotNil(t, pb)
	require.Equal(t, "PARTNER", pb["channel"])
	require.Equal(t, "o-1", pb["client_order_id"])
	require.Equal(t, "user-1", pb["user_uuid"])
	require.Equal(t, "WALLET", pb["settlement"])
	require.Equal(t, "NOT_REQUIRED", pb["payment_status"])
	require.Equal(t, partnerOrder["amountDebited"], pb["amount"])
	require.Equal(t, "INR", pb["currency"])
	require.Equal(t, "AMAZON", pb["brand_code"])
	require.Equal(t, "GIFT_CARD", pb["reward_type"])
	require.Nil(t, pb["coin_id"])
	require.Nil(t, pb["coins_spent"])

	// As documented: the headers, the body's fields, the signature.
	var doc map[string]any
	require.NoError(t, json.Unmarshal(get(t, docsServer(t), "/openapi.json", nil).Body.Bytes(), &doc))
	for _, h := range hits {
		typ := h.header.Get("X-Service-Event-Type")
		op := doc["webhooks"].(map[string]any)[typ].(map[string]any)["post"].(map[string]any)
		var documented []string
		for _, prm := range op["parameters"].([]any) {
			documented = append(documented, http.CanonicalHeaderKey(prm.(map[string]any)["name"].(string)))
		}
		var sent []string
		for name := range h.header {
			if strings.HasPrefix(name, "X-Service-") || name == "User-Agent" {
				sent = append(sent, name)
			}
		}
		require.ElementsMatch(t, documented, sent, typ)
		require.Equal(t, "application/json", h.header.Get("Content-Type"))
		schema := op["requestBody"].(map[string]any)["content"].(map[string]any)["application/json"].(map[string]any)["schema"].(map[string]any)
		var body map[string]any
		require.NoError(t, json.Unmarshal(h.body, &body))
		require.ElementsMatch(t, slices.Collect(maps.Keys(schema["properties"].(map[string]any))), slices.Collect(maps.Keys(body)), typ)
		require.Contains(t, schema["properties"].(map[string]any)["event_type"].(map[string]any)["enum"], typ)

		ts, v1, ok := strings.Cut(strings.TrimPrefix(h.signature, "t="), ",v1=")
		require.True(t, ok, h.signature)
		require.Equal(t, h.header.Get("X-Service-Timestamp"), ts)
		m := hmac.New(sha256.New, []byte(cfg.Secret))
		m.Write([]byte(ts + "." + string(h.body)))
		require.Equal(t, hex.EncodeToString(m.Sum(nil)), v1)
	}

	// Nothing for the studio that does not subscribe: no delivery, no event stored.
	var events, deliveries int
	require.NoError(t, p.pool.QueryRow(ctx, `SELECT count(*) FROM webhook_events WHERE order_id = $1`, quiet["orderId"]).Scan(&events))
	require.NoError(t, p.pool.QueryRow(ctx, `SELECT count(*) FROM webhook_deliveries WHERE config_id = $1`, cfg2.ID).Scan(&deliveries))
	require.Zero(t, events)
	require.Zero(t, deliveries)
	require.Empty(t, rc2.got())
}

// TestWebhookPartnerWalletLowOncePerCrossing: PARTNER_WALLET_LOW is sent when a partner order's
// debit takes the wallet from at or above the configuration's threshold to under it, once: the
// debits under it send nothing, and after a credit back above it the next crossing sends it
// again. Its body is the documented one, signed. Subscribing without a threshold is 400.
func TestWebhookPartnerWalletLowOncePerCrossing(t *testing.T) {
	t.Parallel()
	p := setupHookedPartner(t)
	g := p.game("WALLET", 0)
	tok := p.token(g.key, "")
	brands := p.as(tok, "GET", "/partner/v1/gift-cards/brands?search=amaz", nil)
	require.Equal(t, 200, brands.Status, string(brands.Raw))
	d := firstValue(data(brands)["items"].([]any)[0].(map[string]any))
	pv := p.as(tok, "POST", "/partner/v1/gift-cards/orders/preview", map[string]any{"brandCode": "AMAZON", "denomination": d, "quantity": 1})
	require.Equal(t, 200, pv.Status, string(pv.Raw))
	a := data(pv)["amount"].(float64)

	rc := newReceiver(t, http.StatusOK)
	key := map[string]string{"x-api-key": g.key}
	configure := func(body map[string]any) response {
		return p.call("POST", "/studio-webhooks/configure", "", key, body)
	}
	body := map[string]any{"webhookUrl": rc.srv.URL + "/hook", "subscribedEvents": []string{"PARTNER_WALLET_LOW"}, "environment": "DEVELOPMENT"}
	requireError(t, configure(body), 400, "VALIDATION_FAILED")
	body["partnerWalletLowThreshold"] = 2 * a
	r := configure(body)
	require.Equal(t, 201, r.Status, string(r.Raw))
	cfg := data(r)
	require.Equal(t, 2*a, cfg["partnerWalletLowThreshold"])
	rc.set(http.StatusOK, cfg["signingSecret"].(string))

	order := func(id string) {
		t.Helper()
		placed := p.order(tok, orderBody(id, "AMAZON", d, 1))
		require.Equal(t, 201, placed.Status, string(placed.Raw))
	}
	require.Equal(t, 201, p.credit(g, 3*a+1, "c-1").Status) // 3a+1
	order("w-1")                                            // 2a+1: at or above 2a
	order("w-2")                                            // a+1: crossed
	order("w-3")                                            // 1: under, no crossing
	require.Equal(t, 201, p.credit(g, 2*a, "c-2").Status)   // 2a+1: above again
	order("w-4")                                            // a+1: crossed again

	require.Eventually(t, func() bool { return len(rc.got()) >= 2 }, 60*time.Second, 50*time.Millisecond)
	time.Sleep(300 * time.Millisecond) // time for an event too many to arrive
	hits := rc.got()
	require.Len(t, hits, 2, "once per crossing")

	var doc map[string]any
	require.NoError(t, json.Unmarshal(get(t, docsServer(t), "/openapi.json", nil).Body.Bytes(), &doc))
	op := doc["webhooks"].(map[string]any)["PARTNER_WALLET_LOW"].(map[string]any)["post"].(map[string]any)
	schema := op["requestBody"].(map[string]any)["content"].(map[string]any)["application/json"].(map[string]any)["schema"].(map[string]any)
	for _, h := range hits {
		require.Equal(t, http.StatusOK, h.answered, "signed with the configuration's secret")
		require.Equal(t, "PARTNER_WALLET_LOW", h.header.Get("X-Service-Event-Type"))
		var b map[string]any
		require.NoError(t, json.Unmarshal(h.body, &b))
		require.ElementsMatch(t, slices.Collect(maps.Keys(schema["properties"].(map[string]any))), slices.Collect(maps.Keys(b)))
		require.Equal(t, map[string]any{"event_id": h.eventID, "event_type": "PARTNER_WALLET_LOW", "timestamp": b["timestamp"],
			"app_id": g.id.String(), "environment": "DEVELOPMENT", "balance": a + 1, "previous_balance": 2*a + 1, "threshold": 2 * a}, b)
	}
	require.NotEqual(t, hits[0].eventID, hits[1].eventID)
}
