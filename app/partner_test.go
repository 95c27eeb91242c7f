package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/jackc/pgx/v5/pgxpool"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/httpapi"
	"github.com/rewardsco/rewards/adapters/jobs"
	paycashfree "github.com/rewardsco/rewards/adapters/payments/cashfree"
	paystripe "github.com/rewardsco/rewards/adapters/payments/stripe"
	"github.com/rewardsco/rewards/adapters/postgres"
	"github.com/rewardsco/rewards/adapters/postgres/pgtest"
	voucherhttp "github.com/rewardsco/rewards/adapters/vouchers"
	"github.com/rewardsco/rewards/app"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/partner"
	"github.com/rewardsco/rewards/core/payments"
	"github.com/rewardsco/rewards/core/studio"
	fakecashfree "github.com/rewardsco/rewards/fakes/cashfree"
	fakestripe "github.com/rewardsco/rewards/fakes/stripe"
	fakevouchers "github.com/rewardsco/rewards/fakes/vouchers"
)

// partnerAPI is the whole service on PostgreSQL with River working its jobs, the fake voucher
// provider and the fake payment provider of its currency, all over HTTP.
type partnerAPI struct {
	t        *testing.T
	m        app.Modules
	srv      *httptest.Server
	fakesURL string
	vouchers *fakevouchers.Provider
	currency string
	provider string
	pool     *pgxpool.Pool
	// client checks the service's answers against its documents (checkedClient).
	client     *http.Client
	clientOnce sync.Once
}

const partnerFakeSecret = "fake-client-secret"

func setupPartner(t *testing.T, currency string, ttl time.Duration) *partnerAPI {
	t.Helper()
	return setupPartnerWith(t, currency, ttl, nil)
}

// setupPartnerWorlds is setupPartner; with builtInSandbox the test environment has the built-in
// sandbox voucher provider and payment page (as in production with no REWARDS_TEST_* set) and
// the fakes are the live providers only.
func setupPartnerWorlds(t *testing.T, currency string, ttl time.Duration, builtInSandbox bool) *partnerAPI {
	t.Helper()
	if !builtInSandbox {
		return setupPartner(t, currency, ttl)
	}
	return setupPartnerWith(t, currency, ttl, func(ext *app.External, _ string) {
		ext.TestVouchers, ext.SandboxDelay, ext.TestPayments = nil, 500*time.Millisecond, nil
	})
}

// setupPartnerWith is setupPartner with change applied to the adapters (fakesURL is the fakes'
// address).
func setupPartnerWith(t *testing.T, currency string, ttl time.Duration, change func(ext *app.External, fakesURL string)) *partnerAPI {
	t.Helper()
	ctx := context.Background()
	vouchers := fakevouchers.New(fakevouchers.WithSandboxDelay(3 * time.Second))
	st := fakestripe.New(fakestripe.WithWebhookRetries(3, 100*time.Millisecond), fakestripe.WithSweepInterval(200*time.Millisecond))
	cf := fakecashfree.New(fakecashfree.WithWebhookRetries(3, 100*time.Millisecond), fakecashfree.WithClientSecret(partnerFakeSecret))
	t.Cleanup(st.Close)
	t.Cleanup(cf.Close)
	mux := http.NewServeMux()
	vouchers.Register(mux)
	st.Register(mux)
	cf.Register(mux)
	fakes := httptest.NewServer(mux)
	t.Cleanup(fakes.Close)

	var pay payments.Provider
	provider := "cashfree"
	if currency == "USD" {
		provider = "stripe"
		pay = paystripe.New(paystripe.Config{SecretKey: "sk_test_x", WebhookSecret: fakestripe.DefaultWebhookSecret, BaseURL: fakes.URL + "/stripe"})
	} else {
		pay = paycashfree.New(paycashfree.Config{ClientID: "cf-id", ClientSecret: partnerFakeSecret, BaseURL: fakes.URL + "/cashfree"})
	}
	pool := pgtest.Pool(t)
	queue := jobs.New(pool, jobs.Options{})
	ext := app.External{
		SecretKey: "test-secret-key-test-secret-key-0123456789", PlayerTokenTTL: time.Hour, Currency: currency,
		// The fake is both the live provider and the test environment's sandbox, for its
		// behaviour switches.
		Vouchers: voucherhttp.New(fakes.URL+"/vouchers", ""), TestVouchers: voucherhttp.New(fakes.URL+"/vouchers", ""),
		VoucherWait: 2 * time.Second, VoucherPoll: 300 * time.Millisecond, VoucherDeadline: time.Hour,
		// The fake payment provider is the live one and the test environment's test mode alike.
		Payments: pay, TestPayments: pay, PaymentSessionTTL: ttl, PublicURL: "https://rewards.example.com",
	}
	if change != nil {
		change(&ext, fakes.URL)
	}
	m, err := app.NewModules(postgres.NewDB(pool), queue, ext)
	require.NoError(t, err)
	runQueue(t, queue)
	_, err = m.Catalogue.Sync(ctx)
	require.NoError(t, err)
	srv := httptest.NewServer(app.NewServer(m, app.ServerConfig{
		Log: slog.New(slog.DiscardHandler), Currency: currency, AdminToken: adminToken,
		Hosts: httpapi.Hosts{Live: []string{"live.localhost"}, Dev: []string{"localhost", "127.0.0.1"}},
	}).Handler())
	t.Cleanup(srv.Close)
	st.SetWebhookTarget(srv.URL)
	cf.SetWebhookTarget(srv.URL)
	return &partnerAPI{t: t, m: m, srv: srv, fakesURL: fakes.URL, vouchers: vouchers, currency: currency, provider: provider, pool: pool}
}

// call sends a JSON body (or a string as is) with headers; host "" is the development host.
func (p *partnerAPI) call(method, rawURL, host string, headers map[string]string, body any) response {
	p.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		require.NoError(p.t, err)
		rd = bytes.NewReader(raw)
	}
	if strings.HasPrefix(rawURL, "/") {
		rawURL = p.srv.URL + rawURL
	}
	req, err := http.NewRequest(method, rawURL, rd)
	require.NoError(p.t, err)
	if host != "" {
		req.Host = host
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	p.clientOnce.Do(func() { p.client = checkedClient(p.t, p.srv) })
	res, err := p.client.Do(req)
	require.NoError(p.t, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(p.t, err)
	out := response{Status: res.StatusCode, Header: res.Header, Raw: raw}
	if bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{")) {
		require.NoError(p.t, json.Unmarshal(raw, &out.Body), string(raw))
	}
	return out
}

func (p *partnerAPI) admin(method, path string, body any) response {
	return p.call(method, path, "", map[string]string{"Authorization": "Bearer " + adminToken}, body)
}

// partnerGame is an enabled partner game with its test key.
type partnerGame struct {
	id   uuid.UUID
	key  string
	live string
}

func (p *partnerAPI) game(settlement string, discountPct float64) partnerGame {
	p.t.Helper()
	ctx := context.Background()
	s, err := p.m.Studios.CreateStudio(ctx, "Partner "+uuid.NewString()[:8])
	require.NoError(p.t, err)
	g, err := p.m.Studios.CreateGame(ctx, studio.Game{StudioID: s.ID, Name: "Reseller"})
	require.NoError(p.t, err)
	r := p.admin("PUT", "/admin/v1/games/"+g.ID.String()+"/partner", map[string]any{"enabled": true, "settlement": settlement, "discountPct": discountPct})
	require.Equal(p.t, 200, r.Status, string(r.Raw))
	return partnerGame{id: g.ID, key: g.TestKey, live: g.LiveKey}
}

func (p *partnerAPI) token(key, secret string) string {
	p.t.Helper()
	body := map[string]any{"client_id": key}
	if secret != "" {
		body["client_secret"] = secret
	}
	r := p.call("POST", "/partner/v1/token", "", nil, body)
	require.Equal(p.t, 200, r.Status, string(r.Raw))
	return data(r)["access_token"].(string)
}

func (p *partnerAPI) as(token, method, path string, body any) response {
	return p.call(method, path, "", map[string]string{"Authorization": "Bearer " + token}, body)
}

func (p *partnerAPI) credit(g partnerGame, amount float64, ref string) response {
	p.t.Helper()
	return p.admin("POST", "/admin/v1/games/"+g.id.String()+"/partner/test/wallet/credits", map[string]any{"amount": amount, "reference": ref})
}

func data(r response) map[string]any {
	d, _ := r.Body["data"].(map[string]any)
	return d
}

func (p *partnerAPI) order(token string, body map[string]any) response {
	return p.as(token, "POST", "/partner/v1/gift-cards/orders", body)
}

func orderBody(clientOrderID, brand string, denomination float64, quantity int) map[string]any {
	return map[string]any{"clientOrderId": clientOrderID, "brandCode": brand, "denomination": denomination, "quantity": quantity,
		"customer": map[string]any{"ref": "user-1", "email": "asha@example.com", "phone": "+919876543210"}}
}

// await reads an order until cond holds.
func (p *partnerAPI) await(token, id string, cond func(map[string]any) bool) map[string]any {
	p.t.Helper()
	var last map[string]any
	for range 150 {
		r := p.as(token, "GET", "/partner/v1/gift-cards/orders/"+id, nil)
		require.Equal(p.t, 200, r.Status, string(r.Raw))
		last = data(r)
		if cond(last) {
			return last
		}
		time.Sleep(100 * time.Millisecond)
	}
	p.t.Fatalf("order %s never reached the condition; last %v", id, last)
	return nil
}

func status(s string) func(map[string]any) bool {
	return func(o map[string]any) bool { return o["status"] == s }
}

func (p *partnerAPI) ledger(g partnerGame) map[string]any {
	p.t.Helper()
	r := p.admin("GET", "/admin/v1/games/"+g.id.String()+"/partner/test/wallet", nil)
	require.Equal(p.t, 200, r.Status, string(r.Raw))
	return r.Body
}

func TestPartnerTokenExchange(t *testing.T) {
	t.Parallel()
	p := setupPartner(t, "INR", time.Minute)
	g := p.game("WALLET", 0)

	// No secret: the key alone works, as JSON and as a form.
	tok := p.token(g.key, "")
	require.True(t, strings.HasPrefix(tok, "rpt_"))
	form := p.call("POST", "/partner/v1/token", "", map[string]string{"Content-Type": "application/x-www-form-urlencoded"},
		url.Values{"client_id": {g.key}}.Encode())
	require.Equal(t, 200, form.Status, string(form.Raw))
	require.Equal(t, "Bearer", data(form)["token_type"])
	require.Equal(t, float64(86400), data(form)["expires_in"])
	cfg := p.as(tok, "GET", "/partner/v1/gift-cards/config", nil)
	require.Equal(t, 200, cfg.Status, string(cfg.Raw))
	require.Equal(t, map[string]any{"settlement": "WALLET", "currency": "INR"}, data(cfg))
	require.NotEmpty(t, cfg.Body["requestId"])

	// Missing, unknown, and the other environment's host.
	requireError(t, p.call("GET", "/partner/v1/gift-cards/config", "", nil, nil), 401, "PARTNER_TOKEN_MISSING")
	requireError(t, p.as("rpt_nope", "GET", "/partner/v1/gift-cards/config", nil), 401, "PARTNER_TOKEN_INVALID")
	requireError(t, p.call("GET", "/partner/v1/gift-cards/config", "live.localhost", map[string]string{"Authorization": "Bearer " + tok}, nil), 401, "PARTNER_TOKEN_INVALID")
	requireError(t, p.call("POST", "/partner/v1/token", "", nil, map[string]any{"client_id": g.live}), 401, "INVALID_CLIENT")
	requireError(t, p.call("POST", "/partner/v1/token", "", nil, map[string]any{"client_id": "rk_test_unknownunknownunknownunknown1"}), 401, "INVALID_CLIENT")
	requireError(t, p.call("POST", "/partner/v1/token", "", nil, map[string]any{"client_id": g.key, "extra": 1}), 400, "VALIDATION_FAILED")

	// A secret: then required; a wrong one 401; the right one works.
	sec := p.admin("POST", "/admin/v1/games/"+g.id.String()+"/partner/test/secret", nil)
	require.Equal(t, 201, sec.Status, string(sec.Raw))
	secret := sec.Body["clientSecret"].(string)
	require.True(t, strings.HasPrefix(secret, "rcs_") && len(secret) == 44, secret)
	requireError(t, p.as(tok, "GET", "/partner/v1/gift-cards/config", nil), 401, "PARTNER_TOKEN_INVALID") // revoked with the rotation
	requireError(t, p.call("POST", "/partner/v1/token", "", nil, map[string]any{"client_id": g.key}), 401, "INVALID_CLIENT")
	requireError(t, p.call("POST", "/partner/v1/token", "", nil, map[string]any{"client_id": g.key, "client_secret": secret + "x"}), 401, "INVALID_CLIENT")
	tok2 := p.token(g.key, secret)
	require.Equal(t, 200, p.as(tok2, "GET", "/partner/v1/gift-cards/wallet", nil).Status)

	// Rotation: the old secret and its tokens stop working.
	sec2 := p.admin("POST", "/admin/v1/games/"+g.id.String()+"/partner/test/secret", nil)
	require.Equal(t, 201, sec2.Status)
	requireError(t, p.call("POST", "/partner/v1/token", "", nil, map[string]any{"client_id": g.key, "client_secret": secret}), 401, "INVALID_CLIENT")
	requireError(t, p.as(tok2, "GET", "/partner/v1/gift-cards/wallet", nil), 401, "PARTNER_TOKEN_INVALID")
	tok3 := p.token(g.key, sec2.Body["clientSecret"].(string))

	// Disabled: the token exchange is 401 and every other call 403.
	r := p.admin("PUT", "/admin/v1/games/"+g.id.String()+"/partner", map[string]any{"enabled": false, "settlement": "WALLET"})
	require.Equal(t, 200, r.Status, string(r.Raw))
	requireError(t, p.as(tok3, "GET", "/partner/v1/gift-cards/config", nil), 403, "PARTNER_DISABLED")
	requireError(t, p.call("POST", "/partner/v1/token", "", nil, map[string]any{"client_id": g.key, "client_secret": sec2.Body["clientSecret"]}), 401, "INVALID_CLIENT")

	// Operator input.
	requireError(t, p.admin("PUT", "/admin/v1/games/"+g.id.String()+"/partner", map[string]any{"enabled": true, "settlement": "BARTER"}), 400, "VALIDATION_FAILED")
	requireError(t, p.admin("PUT", "/admin/v1/games/"+g.id.String()+"/partner", map[string]any{"enabled": true, "settlement": "CASH", "discountPct": 91}), 400, "VALIDATION_FAILED")
	requireError(t, p.admin("PUT", "/admin/v1/games/"+uuid.NewString()+"/partner", map[string]any{"enabled": true, "settlement": "CASH"}), 404, "GAME_NOT_FOUND")
}

func TestPartnerWalletOrders(t *testing.T) {
	t.Parallel()
	p := setupPartner(t, "INR", time.Minute)
	g := p.game("WALLET", 2.5)
	tok := p.token(g.key, "")

	// Brands and stock.
	brands := p.as(tok, "GET", "/partner/v1/gift-cards/brands?search=amaz", nil)
	require.Equal(t, 200, brands.Status, string(brands.Raw))
	items := data(brands)["items"].([]any)
	require.Len(t, items, 1)
	amazon := items[0].(map[string]any)
	require.Equal(t, "AMAZON", amazon["brandCode"])
	require.Equal(t, 2.5, amazon["discountPct"])
	require.Equal(t, float64(20), data(brands)["limit"])
	detail := p.as(tok, "GET", "/partner/v1/gift-cards/brands/AMAZON", nil)
	require.Equal(t, 200, detail.Status, string(detail.Raw))
	requireError(t, p.as(tok, "GET", "/partner/v1/gift-cards/brands/NOPE", nil), 404, "BRAND_NOT_FOUND")
	d := firstValue(amazon)
	stock := p.as(tok, "GET", fmt.Sprintf("/partner/v1/gift-cards/brands/AMAZON/stock?denomination=%v", d), nil)
	require.Equal(t, 200, stock.Status, string(stock.Raw))
	require.Equal(t, true, data(stock)["available"])
	requireError(t, p.as(tok, "GET", "/partner/v1/gift-cards/brands/AMAZON/stock?denomination=3.33", nil), 400, "DENOMINATION_NOT_AVAILABLE")

	// Too low a balance: 400 and nothing created.
	requireError(t, p.order(tok, orderBody("o-1", "AMAZON", d, 2)), 400, "INSUFFICIENT_WALLET_BALANCE")
	list := p.as(tok, "GET", "/partner/v1/gift-cards/orders", nil)
	require.Equal(t, float64(0), data(list)["total"])
	require.Empty(t, p.ledger(g)["entries"])

	// Credits, once per reference.
	require.Equal(t, 201, p.credit(g, 10000, "wire-1").Status)
	again := p.credit(g, 10000, "wire-1")
	require.Equal(t, 200, again.Status)
	require.Equal(t, "true", again.Header.Get("x-idempotent-replay"))
	require.Equal(t, float64(10000), again.Body["balance"])

	// Preview then order: the debit is the preview's amount.
	pv := p.as(tok, "POST", "/partner/v1/gift-cards/orders/preview", map[string]any{"brandCode": "AMAZON", "denomination": d, "quantity": 2})
	require.Equal(t, 200, pv.Status, string(pv.Raw))
	amount := data(pv)["amount"].(float64)
	face, _ := money.FromUnits(d * 2)
	require.Equal(t, face.Less(250).Units(), amount)
	body := orderBody("o-1", "AMAZON", d, 2)
	body["quoteId"] = data(pv)["quoteId"]
	placed := p.order(tok, body)
	require.Equal(t, 201, placed.Status, string(placed.Raw))
	o := data(placed)
	require.Equal(t, "SUCCESS", o["status"])
	require.Equal(t, "NOT_REQUIRED", o["paymentStatus"])
	require.Equal(t, amount, o["amountDebited"])
	require.Len(t, o["codes"], 2)
	require.Nil(t, o["cashAmount"])
	var queued int
	require.NoError(t, p.pool.QueryRow(context.Background(), `SELECT count(*) FROM river_job WHERE kind = 'fulfil_order'
		AND args->>'order_id' = $1 AND state IN ('scheduled', 'available')`, o["orderId"]).Scan(&queued))
	require.Zero(t, queued, "an order final within the placement's wait needs no fulfilment job")
	stored := p.as(tok, "GET", "/partner/v1/gift-cards/orders/"+o["orderId"].(string), nil)
	require.Equal(t, 200, stored.Status, string(stored.Raw))
	require.Equal(t, o["createdAt"], data(stored)["createdAt"], "the answer's creation time is the stored one")
	require.NotEqual(t, "0001-01-01T00:00:00Z", o["createdAt"])
	wallet := p.as(tok, "GET", "/partner/v1/gift-cards/wallet", nil)
	require.InDelta(t, 10000-amount, data(wallet)["balance"].(float64), 0.001)

	// A retry replays; another body with the clientOrderId is 422; a quote for another order is refused.
	replay := p.order(tok, orderBody("o-1", "AMAZON", d, 2))
	require.Equal(t, 200, replay.Status, string(replay.Raw))
	require.Equal(t, "true", replay.Header.Get("x-idempotent-replay"))
	require.Equal(t, o["orderId"], data(replay)["orderId"])
	requireError(t, p.order(tok, orderBody("o-1", "AMAZON", d, 1)), 422, "IDEMPOTENCY_KEY_REUSED")
	// A retry answers the order placed even when no order could be placed now (the provider down).
	p.vouchers.SetBehaviour(fakevouchers.Behaviour{Status: 503})
	down := p.order(tok, orderBody("o-1", "AMAZON", d, 2))
	p.vouchers.SetBehaviour(fakevouchers.Behaviour{})
	require.Equal(t, 200, down.Status, string(down.Raw))
	require.Equal(t, "true", down.Header.Get("x-idempotent-replay"))
	require.Equal(t, o["orderId"], data(down)["orderId"])
	mismatch := orderBody("o-q", "AMAZON", d, 1)
	mismatch["quoteId"] = data(pv)["quoteId"]
	requireError(t, p.order(tok, mismatch), 400, "QUOTE_MISMATCH")
	requireError(t, p.order(tok, orderBody("o bad", "AMAZON", d, 1)), 400, "VALIDATION_FAILED")
	requireError(t, p.order(tok, orderBody("o-x", "NOPE", d, 1)), 400, "BRAND_NOT_FOUND")
	requireError(t, p.order(tok, orderBody("o-x", "AMAZON", 3.33, 1)), 400, "DENOMINATION_NOT_AVAILABLE")

	// The same clientOrderId three times at once: one order, one debit.
	var wg sync.WaitGroup
	ids := make([]string, 3)
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := p.order(tok, orderBody("o-concurrent", "AMAZON", d, 1))
			if r.Status == 200 || r.Status == 201 {
				ids[i] = data(r)["orderId"].(string)
			} else {
				t.Errorf("concurrent placement: %d %s", r.Status, r.Raw)
			}
		}()
	}
	wg.Wait()
	require.Equal(t, ids[0], ids[1])
	require.Equal(t, ids[0], ids[2])
	debits := 0
	for _, e := range p.ledger(g)["entries"].([]any) {
		if e.(map[string]any)["orderId"] == ids[0] {
			debits++
		}
	}
	require.Equal(t, 1, debits)

	// SANDBOX_FAIL: FAILED and the wallet whole.
	before := p.ledger(g)["balance"].(float64)
	failBrand := p.as(tok, "GET", "/partner/v1/gift-cards/brands/SANDBOX_FAIL", nil)
	require.Equal(t, 200, failBrand.Status, string(failBrand.Raw))
	fd := firstValue(data(failBrand))
	failed := p.order(tok, orderBody("o-fail", "SANDBOX_FAIL", fd, 1))
	require.Equal(t, 201, failed.Status, string(failed.Raw))
	require.Equal(t, "FAILED", data(failed)["status"])
	// The provider's code, never its free text.
	require.Equal(t, "refused by the voucher provider (SANDBOX_FAIL)", data(failed)["failureReason"])
	require.Empty(t, data(failed)["codes"])
	require.Equal(t, before, p.ledger(g)["balance"])

	// SANDBOX_SLOW: TIMEOUT, then SUCCESS by itself.
	slowBrand := data(p.as(tok, "GET", "/partner/v1/gift-cards/brands/SANDBOX_SLOW", nil))
	p.vouchers.SetBehaviour(fakevouchers.Behaviour{})
	slow := p.order(tok, orderBody("o-slow", "SANDBOX_SLOW", firstValue(slowBrand), 1))
	require.Equal(t, 201, slow.Status, string(slow.Raw))
	require.Equal(t, "TIMEOUT", data(slow)["status"], string(slow.Raw)) // issued 3 s later, past the 2 s wait
	done := p.await(tok, data(slow)["orderId"].(string), status("SUCCESS"))
	require.Len(t, done["codes"], 1)

	// Lists and filters; another studio's order is 404.
	filtered := p.as(tok, "GET", "/partner/v1/gift-cards/orders?clientOrderId=o-1", nil)
	require.Equal(t, float64(1), data(filtered)["total"])
	byRef := p.as(tok, "GET", "/partner/v1/gift-cards/orders?customerRef=user-1&limit=2", nil)
	require.Equal(t, float64(4), data(byRef)["total"], string(byRef.Raw)) // o-1, o-concurrent, o-fail, o-slow
	require.Len(t, data(byRef)["items"], 2)
	other := p.game("WALLET", 0)
	otherTok := p.token(other.key, "")
	requireError(t, p.as(otherTok, "GET", "/partner/v1/gift-cards/orders/"+o["orderId"].(string), nil), 404, "ORDER_NOT_FOUND")
	requireError(t, p.as(otherTok, "GET", "/partner/v1/gift-cards/orders/not-an-id", nil), 404, "ORDER_NOT_FOUND")
	require.Equal(t, float64(0), data(p.as(otherTok, "GET", "/partner/v1/gift-cards/orders", nil))["total"])

	requireLedgerAddsUp(t, p, g)
}

func firstValue(brand map[string]any) float64 {
	if ds, ok := brand["denominations"].([]any); ok && len(ds) > 0 {
		return ds[0].(float64)
	}
	return brand["minValue"].(float64)
}

// requireLedgerAddsUp checks that the wallet balance is the sum of its entries, that no entry
// left it negative, and that each SUCCESS order has one debit and each FAILED order a debit and
// a refund.
func requireLedgerAddsUp(t *testing.T, p *partnerAPI, g partnerGame) {
	t.Helper()
	ctx := context.Background()
	entries, err := p.m.Partner.Entries(ctx, g.id, studio.Test)
	require.NoError(t, err)
	var sum money.Amount
	perOrder := map[uuid.UUID]map[partner.EntryKind]int{}
	for _, e := range entries {
		sum += e.Amount
		require.Equal(t, sum, e.BalanceAfter, "entry %d", e.ID)
		require.GreaterOrEqual(t, e.BalanceAfter, money.Amount(0))
		if e.OrderID != nil {
			if perOrder[*e.OrderID] == nil {
				perOrder[*e.OrderID] = map[partner.EntryKind]int{}
			}
			perOrder[*e.OrderID][e.Kind]++
		}
	}
	bal, err := p.m.Partner.Wallet(ctx, partner.Caller{GameID: g.id, Environment: studio.Test})
	require.NoError(t, err)
	require.Equal(t, sum, bal)
	list, _, err := p.m.Partner.Orders(ctx, partner.Caller{GameID: g.id, Environment: studio.Test}, "", "", 10000, 0)
	require.NoError(t, err)
	for _, o := range list {
		kinds := perOrder[o.ID]
		require.Equal(t, 1, kinds[partner.Debit], "order %s (%s)", o.ID, o.Status)
		want := 0
		if o.Status == orders.Failed {
			want = 1
		}
		require.Equal(t, want, kinds[partner.Refund], "order %s (%s)", o.ID, o.Status)
	}
	require.Len(t, perOrder, len(list))
}

func TestPartnerPreviewIsTheDebitForEveryBrand(t *testing.T) {
	t.Parallel()
	for _, currency := range []string{"INR", "USD"} {
		t.Run(currency, func(t *testing.T) {
			t.Parallel()
			p := setupPartner(t, currency, time.Minute)
			g := p.game("WALLET", 3.33)
			tok := p.token(g.key, "")
			require.Equal(t, 201, p.credit(g, 1_000_000, "fund").Status)
			var brands []map[string]any
			for page := 1; ; page++ {
				r := p.as(tok, "GET", fmt.Sprintf("/partner/v1/gift-cards/brands?limit=7&page=%d", page), nil)
				require.Equal(t, 200, r.Status, string(r.Raw))
				for _, it := range data(r)["items"].([]any) {
					brands = append(brands, it.(map[string]any))
				}
				if len(brands) >= int(data(r)["total"].(float64)) {
					break
				}
			}
			require.Greater(t, len(brands), 10)
			n := 0
			for _, b := range brands {
				code := b["brandCode"].(string)
				if strings.HasPrefix(code, "SANDBOX_") {
					continue
				}
				var values []float64
				if ds, ok := b["denominations"].([]any); ok {
					for _, d := range ds {
						values = append(values, d.(float64))
					}
				} else {
					values = []float64{b["minValue"].(float64), (b["minValue"].(float64) + b["maxValue"].(float64)) / 2}
					values[1] = float64(int(values[1]*100)) / 100
				}
				for _, v := range values {
					qty := 1 + n%3
					// Some fake brands have limited stock: buy what is left.
					st := data(p.as(tok, "GET", fmt.Sprintf("/partner/v1/gift-cards/brands/%s/stock?denomination=%v", code, v), nil))
					if st["available"] != true {
						continue
					}
					if left, ok := st["quantity"].(float64); ok && int(left) < qty {
						qty = int(left)
					}
					pv := p.as(tok, "POST", "/partner/v1/gift-cards/orders/preview", map[string]any{"brandCode": code, "denomination": v, "quantity": qty})
					require.Equal(t, 200, pv.Status, string(pv.Raw))
					before := p.ledger(g)["balance"].(float64)
					r := p.order(tok, orderBody(fmt.Sprintf("e-%d", n), code, v, qty))
					require.Equal(t, 201, r.Status, string(r.Raw))
					require.Equal(t, "SUCCESS", data(r)["status"], string(r.Raw))
					require.Equal(t, data(pv)["amount"], data(r)["amountDebited"], "%s %v × %d", code, v, qty)
					after := p.ledger(g)["balance"].(float64)
					got, _ := money.FromUnits(before - after)
					want, _ := money.FromUnits(data(pv)["amount"].(float64))
					require.Equal(t, want, got, "%s %v × %d: the wallet moved by the preview's amount, to the cent", code, v, qty)
					n++
				}
			}
			require.Greater(t, n, 20)
			requireLedgerAddsUp(t, p, g)
		})
	}
}

func TestPartnerWalletLedgerUnderConcurrency(t *testing.T) {
	t.Parallel()
	p := setupPartner(t, "INR", time.Minute)
	g := p.game("WALLET", 0)
	ctx := context.Background()
	caller := partner.Caller{GameID: g.id, Environment: studio.Test, Settings: partner.Settings{Enabled: true, Settlement: orders.Wallet}}
	brand, err := p.m.Partner.Brand(ctx, "AMAZON")
	require.NoError(t, err)
	d := brand.MinValue
	if len(brand.Denominations) > 0 {
		d = brand.Denominations[0]
	}
	_, _, err = p.m.Partner.Credit(ctx, g.id, studio.Test, d.Times(20), "seed")
	require.NoError(t, err)
	// 240 orders and 60 credits of two cards' worth at once: the wallet runs dry and refills
	// many times; some orders are refused for the balance, none overdraws it.
	var wg sync.WaitGroup
	var mu sync.Mutex
	placed, refused := 0, 0
	for i := range 300 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%5 == 4 {
				_, _, err := p.m.Partner.Credit(ctx, g.id, studio.Test, d.Times(2), fmt.Sprintf("credit-%d", i))
				if err != nil {
					t.Errorf("credit: %v", err)
				}
				return
			}
			_, _, err := p.m.Partner.Place(ctx, caller, partner.PlaceRequest{ClientOrderID: fmt.Sprintf("c-%d", i), BrandCode: "AMAZON",
				Denomination: d, Quantity: 1, Customer: orders.Customer{Ref: "u"}})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				placed++
			case err.Error() != "" && strings.Contains(err.Error(), "balance too low"):
				refused++
			default:
				t.Errorf("place: %v", err)
			}
		}()
	}
	wg.Wait()
	require.Equal(t, 240, placed+refused)
	require.Greater(t, placed, 20)
	t.Logf("%d placed, %d refused for the balance", placed, refused)
	requireLedgerAddsUp(t, p, g)
	bal, err := p.m.Partner.Wallet(ctx, caller)
	require.NoError(t, err)
	require.Equal(t, d.Times(20+2*60-int64(placed)), bal)
}

// payPage is the address of an order's sandbox payment page at the fake provider.
func (p *partnerAPI) payPage(o map[string]any) string {
	token := o["paymentSessionId"].(string)
	if p.provider == "stripe" {
		return token // the approval URL
	}
	return p.fakesURL + "/cashfree/pg/sandbox/" + token
}

// payer acts on the sandbox page: action pay or cancel; force pays a session that has ended.
func (p *partnerAPI) payer(o map[string]any, action string, force bool) {
	p.t.Helper()
	form := url.Values{"action": {action}}
	if force {
		form.Set("force", "1")
	}
	r := p.call("POST", p.payPage(o), "", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, form.Encode())
	require.Less(p.t, r.Status, 400, "%s on %s: %d %s", action, p.payPage(o), r.Status, r.Raw)
}

func (p *partnerAPI) behaviour(b map[string]any) {
	p.t.Helper()
	r := p.call("POST", p.fakesURL+"/"+p.provider+"/behaviour", "", nil, b)
	require.Equal(p.t, 200, r.Status, string(r.Raw))
}

// refundsAt counts the refunds the fake provider holds for an order.
func (p *partnerAPI) refundsAt(id string) int {
	p.t.Helper()
	o, err := p.m.Orders.Get(context.Background(), uuid.MustParse(id))
	require.NoError(p.t, err)
	var r response
	if p.provider == "stripe" {
		if o.Partner.Payment.PaymentID == "" {
			return 0
		}
		r = p.call("GET", p.fakesURL+"/stripe/v1/refunds?payment_intent="+o.Partner.Payment.PaymentID, "", map[string]string{"Authorization": "Bearer sk_test_x"}, nil)
		require.Equal(p.t, 200, r.Status, string(r.Raw))
		return len(r.Body["data"].([]any))
	}
	r = p.call("GET", p.fakesURL+"/cashfree/pg/orders/"+id+"/refunds", "", map[string]string{"x-client-id": "cf-id", "x-client-secret": partnerFakeSecret, "x-api-version": "2023-08-01"}, nil)
	require.Equal(p.t, 200, r.Status, string(r.Raw))
	var list []any
	require.NoError(p.t, json.Unmarshal(r.Raw, &list), string(r.Raw))
	return len(list)
}

func (p *partnerAPI) transitions(id string) int {
	_, tr, err := p.m.Orders.History(context.Background(), uuid.MustParse(id))
	require.NoError(p.t, err)
	return len(tr)
}

func TestPartnerCashOrders(t *testing.T) {
	t.Parallel()
	for _, currency := range []string{"INR", "USD"} {
		t.Run(currency, func(t *testing.T) {
			t.Parallel()
			p := setupPartner(t, currency, 3*time.Second)
			g := p.game("CASH", 5)
			tok := p.token(g.key, "")
			cfg := data(p.as(tok, "GET", "/partner/v1/gift-cards/config", nil))
			require.Equal(t, map[string]any{"settlement": "CASH", "currency": currency}, cfg)
			amazon := data(p.as(tok, "GET", "/partner/v1/gift-cards/brands/AMAZON", nil))
			d := firstValue(amazon)
			parent := t
			run := func(name string, f func(t *testing.T)) {
				parent.Run(name, func(t *testing.T) {
					p.t = t
					defer func() { p.t = parent }()
					f(t)
				})
			}
			place := func(id, brand string, value float64) map[string]any {
				t := p.t
				t.Helper()
				body := orderBody(id, brand, value, 1)
				body["returnUrl"] = "https://partner.example.com/back"
				r := p.order(tok, body)
				require.Equal(t, 201, r.Status, string(r.Raw))
				o := data(r)
				require.Equal(t, "PENDING_PAYMENT", o["status"])
				require.Equal(t, "PENDING", o["paymentStatus"])
				require.NotEmpty(t, o["paymentSessionId"])
				require.Empty(t, o["codes"])
				require.Nil(t, o["amountDebited"])
				return o
			}

			run("paid on the sandbox page", func(t *testing.T) {
				o := place("pay-1", "AMAZON", d)
				if p.provider == "stripe" {
					require.True(t, strings.HasPrefix(o["paymentSessionId"].(string), p.fakesURL+"/stripe/checkout/cs_"), o["paymentSessionId"])
				}
				face, _ := money.FromUnits(d)
				require.Equal(t, face.Less(500).Units(), o["cashAmount"])
				p.payer(o, "pay", false)
				done := p.await(tok, o["orderId"].(string), status("SUCCESS"))
				require.Equal(t, "PAID", done["paymentStatus"])
				require.Len(t, done["codes"], 1)
				require.Equal(t, 0, p.refundsAt(o["orderId"].(string)))
			})

			run("cancelled is refunded", func(t *testing.T) {
				o := place("cancel-1", "AMAZON", d)
				p.payer(o, "cancel", false)
				done := p.await(tok, o["orderId"].(string), status("REFUNDED"))
				require.Equal(t, "EXPIRED", done["paymentStatus"])
				require.Empty(t, done["codes"])
			})

			run("expired unpaid is refunded", func(t *testing.T) {
				o := place("expire-1", "AMAZON", d)
				done := p.await(tok, o["orderId"].(string), status("REFUNDED"))
				require.Equal(t, "EXPIRED", done["paymentStatus"])
			})

			run("a read finalises a payment whose webhook was dropped", func(t *testing.T) {
				p.behaviour(map[string]any{"dropWebhooks": true})
				defer p.behaviour(map[string]any{})
				o := place("drop-1", "AMAZON", d)
				p.payer(o, "pay", false)
				r := p.as(tok, "GET", "/partner/v1/gift-cards/orders/"+o["orderId"].(string), nil)
				require.Equal(t, 200, r.Status, string(r.Raw))
				require.Equal(t, "SUCCESS", data(r)["status"], "the first read after payment finalises it")
				require.Equal(t, "PAID", data(r)["paymentStatus"])
				require.Len(t, data(r)["codes"], 1)
			})

			run("duplicate and out-of-order events change nothing", func(t *testing.T) {
				p.behaviour(map[string]any{"holdWebhooks": true})
				o := place("order-1", "AMAZON", d)
				id := o["orderId"].(string)
				p.payer(o, "pay", false)
				// Released newest first, then every event sent again.
				p.behaviour(map[string]any{})
				rel := p.call("POST", p.fakesURL+"/"+p.provider+"/webhooks/release", "", nil, map[string]any{"reverse": true})
				require.Equal(t, 200, rel.Status, string(rel.Raw))
				done := p.await(tok, id, status("SUCCESS"))
				moves, codes := p.transitions(id), done["codes"]
				ev := p.call("GET", p.fakesURL+"/"+p.provider+"/events", "", nil, nil)
				require.Equal(t, 200, ev.Status)
				var events []map[string]any
				require.NoError(t, json.Unmarshal(ev.Raw, &events))
				resent := 0
				for _, e := range events {
					if strings.Contains(fmt.Sprint(e["body"]), id) {
						r := p.call("POST", p.fakesURL+"/"+p.provider+"/events/"+e["id"].(string)+"/resend", "", nil, nil)
						require.Equal(t, 200, r.Status, string(r.Raw))
						resent++
					}
				}
				require.Positive(t, resent)
				time.Sleep(500 * time.Millisecond) // a reconcile job would have run by now
				after := p.await(tok, id, status("SUCCESS"))
				require.Equal(t, codes, after["codes"])
				require.Equal(t, moves, p.transitions(id))
				require.Equal(t, 0, p.refundsAt(id))
			})

			run("a fulfilment failure after payment is refunded", func(t *testing.T) {
				fail := data(p.as(tok, "GET", "/partner/v1/gift-cards/brands/SANDBOX_FAIL", nil))
				o := place("fail-1", "SANDBOX_FAIL", firstValue(fail))
				p.payer(o, "pay", false)
				id := o["orderId"].(string)
				done := p.await(tok, id, func(o map[string]any) bool { return o["status"] == "FAILED" && o["paymentStatus"] == "REFUNDED" })
				require.Empty(t, done["codes"])
				require.Equal(t, 1, p.refundsAt(id))
			})

			run("a payment after expiry is refunded", func(t *testing.T) {
				o := place("late-1", "AMAZON", d)
				id := o["orderId"].(string)
				p.payer(o, "cancel", false)
				p.await(tok, id, status("REFUNDED"))
				p.payer(o, "pay", true)
				done := p.await(tok, id, func(o map[string]any) bool { return o["paymentStatus"] == "REFUNDED" })
				require.Equal(t, "REFUNDED", done["status"])
				require.Empty(t, done["codes"])
				require.Equal(t, 1, p.refundsAt(id))
			})

			run("a session that cannot be created keeps nothing", func(t *testing.T) {
				p.behaviour(map[string]any{"failNext": 1, "failStatus": 500})
				r := p.order(tok, orderBody("init-1", "AMAZON", d, 1))
				requireError(t, r, 400, "PAYMENT_INIT_FAILED")
				// The provider's error text (its URLs and addresses) stays in the log.
				require.Equal(t, "the payment could not be started", r.Body["message"])
				list := p.as(tok, "GET", "/partner/v1/gift-cards/orders?clientOrderId=init-1", nil)
				require.Equal(t, float64(0), data(list)["total"])
				// The same clientOrderId works once the provider does.
				place("init-1", "AMAZON", d)
			})
		})
	}
}

// TestPartnerOrderOutlastingTheBodyReadDeadline is a WALLET order whose stock check and provider
// call are each held 3 s: the answer comes after about 5 s, past Huma's default body read
// deadline, which used to cancel the request (a 500 after 5 s); it is a 201 TIMEOUT, then SUCCESS.
func TestPartnerOrderOutlastingTheBodyReadDeadline(t *testing.T) {
	t.Parallel()
	p := setupPartner(t, "INR", time.Minute)
	g := p.game("WALLET", 0)
	tok := p.token(g.key, "")
	require.Equal(t, 201, p.credit(g, 100000, "fund").Status)
	d := firstValue(data(p.as(tok, "GET", "/partner/v1/gift-cards/brands/AMAZON", nil)))
	p.vouchers.SetBehaviour(fakevouchers.Behaviour{StallMs: 3000})
	r := p.order(tok, orderBody("slow-1", "AMAZON", d, 1))
	require.Equal(t, 201, r.Status, string(r.Raw))
	require.Equal(t, "TIMEOUT", data(r)["status"])
	p.vouchers.SetBehaviour(fakevouchers.Behaviour{})
	p.await(tok, data(r)["orderId"].(string), status("SUCCESS"))
}
