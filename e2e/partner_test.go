package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestPartner runs the gift-card partner API on both deployments, each a service of its own:
// INR settles CASH through the Cashfree fake, USD through the Stripe fake, and the fakes' signed
// webhooks cross the containers' network to the service.
func TestPartner(t *testing.T) {
	t.Parallel()
	for _, currency := range []string{"INR", "USD"} {
		t.Run(currency, func(t *testing.T) {
			t.Parallel()
			s := startStack(t, map[string]string{
				"REWARDS_CURRENCY":               currency,
				"REWARDS_VOUCHER_BASE_URL":       "http://fakes:9090/vouchers",
				"REWARDS_VOUCHER_WAIT":           "2s",
				"REWARDS_VOUCHER_POLL":           "1s",
				"REWARDS_PAYMENT_SESSION_TTL":    "20s",
				"REWARDS_STRIPE_BASE_URL":        "http://fakes:9090/stripe",
				"REWARDS_STRIPE_SECRET_KEY":      "sk_test_e2e",
				"REWARDS_STRIPE_WEBHOOK_SECRET":  "whsec_fake",
				"REWARDS_CASHFREE_BASE_URL":      "http://fakes:9090/cashfree",
				"REWARDS_CASHFREE_CLIENT_ID":     "cf-e2e",
				"REWARDS_CASHFREE_CLIENT_SECRET": "cf-e2e-secret",
				// The fakes stand for the providers' test modes too (this suite orders in the
				// test environment), with the same webhook secrets.
				"REWARDS_TEST_VOUCHER_BASE_URL":       "http://fakes:9090/vouchers",
				"REWARDS_TEST_STRIPE_BASE_URL":        "http://fakes:9090/stripe",
				"REWARDS_TEST_STRIPE_SECRET_KEY":      "sk_test_e2e",
				"REWARDS_TEST_STRIPE_WEBHOOK_SECRET":  "whsec_fake",
				"REWARDS_TEST_CASHFREE_BASE_URL":      "http://fakes:9090/cashfree",
				"REWARDS_TEST_CASHFREE_CLIENT_ID":     "cf-e2e",
				"REWARDS_TEST_CASHFREE_CLIENT_SECRET": "cf-e2e-secret",
			})
			s.syncCatalogue(t)
			provider := map[string]string{"INR": "cashfree", "USD": "stripe"}[currency]
			p := &partnerClient{s: s, t: t, provider: provider}

			// WALLET: a game funded by the operator.
			wallet := s.newTenant("Wallet Reseller " + currency)
			p.enable(wallet, "WALLET", 2.5)
			tok := p.token(wallet.TestKey)
			requireError(t, p.as(tok, "GET", "/partner/v1/gift-cards/config", nil, "live.localhost"), 401, "PARTNER_TOKEN_INVALID")
			amazon := data(p.as(tok, "GET", "/partner/v1/gift-cards/brands/AMAZON", nil, ""))
			d := firstValue(amazon)
			requireError(t, p.as(tok, "POST", "/partner/v1/gift-cards/orders", order("w-1", "AMAZON", d), ""), 400, "INSUFFICIENT_WALLET_BALANCE")
			r := s.admin("POST", "/admin/v1/games/"+wallet.GameID+"/partner/test/wallet/credits", map[string]any{"amount": 50000, "reference": "wire-1"})
			require.Equal(t, 201, r.Status, string(r.Raw))
			pv := data(p.as(tok, "POST", "/partner/v1/gift-cards/orders/preview", map[string]any{"brandCode": "AMAZON", "denomination": d, "quantity": 1}, ""))
			// Three placements with one clientOrderId at once: one order, one debit.
			var wg sync.WaitGroup
			got := make([]response, 3)
			for i := range got {
				wg.Add(1)
				go func() {
					defer wg.Done()
					got[i] = p.as(tok, "POST", "/partner/v1/gift-cards/orders", order("w-1", "AMAZON", d), "")
				}()
			}
			wg.Wait()
			statuses := map[int]int{}
			for _, g := range got {
				statuses[g.Status]++
				require.Equal(t, data(got[0])["orderId"], data(g)["orderId"], string(g.Raw))
			}
			require.Equal(t, map[int]int{201: 1, 200: 2}, statuses)
			// The first placement answers with the provider's outcome; a replay shows the order as
			// it is at that moment, which may still be in progress.
			var o map[string]any
			for _, g := range got {
				if g.Status == 201 {
					o = data(g)
				}
			}
			require.Equal(t, "SUCCESS", o["status"])
			require.Equal(t, pv["amount"], o["amountDebited"])
			require.Len(t, o["codes"], 1)
			led := s.admin("GET", "/admin/v1/games/"+wallet.GameID+"/partner/test/wallet", nil)
			require.Len(t, led.Body["entries"], 2) // the credit and one debit
			require.InDelta(t, 50000-pv["amount"].(float64), led.Body["balance"], 0.001)
			fail := p.as(tok, "POST", "/partner/v1/gift-cards/orders", order("w-fail", "SANDBOX_FAIL", firstValue(data(p.as(tok, "GET", "/partner/v1/gift-cards/brands/SANDBOX_FAIL", nil, "")))), "")
			require.Equal(t, "FAILED", data(fail)["status"], string(fail.Raw))
			require.InDelta(t, 50000-pv["amount"].(float64), s.admin("GET", "/admin/v1/games/"+wallet.GameID+"/partner/test/wallet", nil).Body["balance"], 0.001)

			// CASH through the deployment's payment provider.
			cash := s.newTenant("Cash Reseller " + currency)
			p.enable(cash, "CASH", 0)
			ctok := p.token(cash.TestKey)
			requireError(t, p.as(ctok, "GET", "/partner/v1/gift-cards/orders/"+o["orderId"].(string), nil, ""), 404, "ORDER_NOT_FOUND")

			paid := p.placeCash(ctok, "c-pay", "AMAZON", d)
			p.payer(paid, "pay", false)
			done := p.await(ctok, paid["orderId"].(string), func(o map[string]any) bool { return o["status"] == "SUCCESS" })
			require.Equal(t, "PAID", done["paymentStatus"])
			require.Len(t, done["codes"], 1)

			cancelled := p.placeCash(ctok, "c-cancel", "AMAZON", d)
			p.payer(cancelled, "cancel", false)
			done = p.await(ctok, cancelled["orderId"].(string), func(o map[string]any) bool { return o["status"] == "REFUNDED" })
			require.Equal(t, "EXPIRED", done["paymentStatus"])

			// The payment webhook dropped: the order's read finalises it.
			p.behaviour(map[string]any{"dropWebhooks": true})
			dropped := p.placeCash(ctok, "c-drop", "AMAZON", d)
			p.payer(dropped, "pay", false)
			read := data(p.as(ctok, "GET", "/partner/v1/gift-cards/orders/"+dropped["orderId"].(string), nil, ""))
			require.Equal(t, "SUCCESS", read["status"])
			p.behaviour(map[string]any{})

			// Fulfilment fails after payment: FAILED, the payment refunded at the provider.
			failed := p.placeCash(ctok, "c-fail", "SANDBOX_FAIL", firstValue(data(p.as(ctok, "GET", "/partner/v1/gift-cards/brands/SANDBOX_FAIL", nil, ""))))
			p.payer(failed, "pay", false)
			done = p.await(ctok, failed["orderId"].(string), func(o map[string]any) bool { return o["paymentStatus"] == "REFUNDED" })
			require.Equal(t, "FAILED", done["status"])
			require.Equal(t, 1, p.refunds(failed["orderId"].(string)))

			// Every event the fake sent was acknowledged, and sending them again changes nothing.
			var events []map[string]any
			ev := s.fakesCall("GET", "/"+provider+"/events", nil)
			require.NoError(t, json.Unmarshal(ev.Raw, &events), string(ev.Raw))
			require.NotEmpty(t, events)
			for _, e := range events {
				if e["dropped"] == true {
					continue
				}
				require.Equal(t, true, e["delivered"], "%v", e)
				s.fakesCall("POST", "/"+provider+"/events/"+e["id"].(string)+"/resend", nil)
			}
			list := data(p.as(ctok, "GET", "/partner/v1/gift-cards/orders?limit=100", nil, ""))
			want := map[string]string{"c-pay": "SUCCESS", "c-cancel": "REFUNDED", "c-drop": "SUCCESS", "c-fail": "FAILED"}
			require.Equal(t, float64(len(want)), list["total"])
			for _, it := range list["items"].([]any) {
				o := it.(map[string]any)
				require.Equal(t, want[o["clientOrderId"].(string)], o["status"], "%v", o)
			}
			require.Equal(t, 1, p.refunds(failed["orderId"].(string)))

			// Killed while a WALLET order waits to be polled (the provider still works on it):
			// after the restart its job finishes it; one debit, no refund, one provider order.
			downPaid := p.placeCash(ctok, "c-down", "AMAZON", d)
			slowValue := firstValue(data(p.as(tok, "GET", "/partner/v1/gift-cards/brands/SANDBOX_SLOW", nil, "")))
			held := p.as(tok, "POST", "/partner/v1/gift-cards/orders", order("w-kill", "SANDBOX_SLOW", slowValue), "")
			require.Equal(t, 201, held.Status, string(held.Raw))
			require.Equal(t, "TIMEOUT", data(held)["status"], string(held.Raw))
			heldID := data(held)["orderId"].(string)
			awaitJobWaiting(t, s.pg.DB(s.ctx), heldID)
			require.Equal(t, "PENDING", s.providerOrders(t, heldID)[0].Status, "killed while the provider still works on it")
			s.svc.Kill(s.ctx)
			// Paid while the service is down: the provider's webhook finds nobody and gives up.
			p.payer(downPaid, "pay", false)
			time.Sleep(3 * time.Second) // the fake's 5 tries, 300 ms apart, all refused
			s.svc.Start(s.ctx)
			done = p.await(tok, heldID, func(o map[string]any) bool { return o["status"] == "SUCCESS" })
			require.Len(t, done["codes"], 1)
			require.Len(t, s.providerOrders(t, heldID), 1)
			entries := 0
			for _, e := range s.admin("GET", "/admin/v1/games/"+wallet.GameID+"/partner/test/wallet", nil).Body["entries"].([]any) {
				if e.(map[string]any)["orderId"] == heldID {
					entries++
				}
			}
			require.Equal(t, 1, entries, "one debit, no refund")
			// The read finalises the payment the service never heard of.
			read = data(p.as(ctok, "GET", "/partner/v1/gift-cards/orders/"+downPaid["orderId"].(string), nil, ""))
			require.Equal(t, "SUCCESS", read["status"], "%v", read)
			require.Equal(t, "PAID", read["paymentStatus"])
		})
	}
}

type partnerClient struct {
	s        *stack
	t        *testing.T
	provider string
}

func (p *partnerClient) enable(tn tenant, settlement string, discount float64) {
	p.t.Helper()
	r := p.s.admin("PUT", "/admin/v1/games/"+tn.GameID+"/partner", map[string]any{"enabled": true, "settlement": settlement, "discountPct": discount})
	require.Equal(p.t, 200, r.Status, string(r.Raw))
}

func (p *partnerClient) token(key string) string {
	p.t.Helper()
	r := p.s.call(request{method: "POST", path: "/partner/v1/token", body: map[string]any{"client_id": key}})
	require.Equal(p.t, 200, r.Status, string(r.Raw))
	return data(r)["access_token"].(string)
}

func (p *partnerClient) as(token, method, path string, body any, host string) response {
	return p.s.call(request{method: method, path: path, body: body, host: host, headers: map[string]string{"Authorization": "Bearer " + token}})
}

func (p *partnerClient) placeCash(token, id, brand string, d float64) map[string]any {
	p.t.Helper()
	r := p.as(token, "POST", "/partner/v1/gift-cards/orders", order(id, brand, d), "")
	require.Equal(p.t, 201, r.Status, string(r.Raw))
	o := data(r)
	require.Equal(p.t, "PENDING_PAYMENT", o["status"])
	require.NotEmpty(p.t, o["paymentSessionId"])
	return o
}

// payer acts on the provider's sandbox page, reached through the fakes' published port.
func (p *partnerClient) payer(o map[string]any, action string, force bool) {
	p.t.Helper()
	page := "/cashfree/pg/sandbox/" + o["paymentSessionId"].(string)
	if p.provider == "stripe" {
		page = strings.TrimPrefix(o["paymentSessionId"].(string), "http://fakes:9090")
	}
	form := url.Values{"action": {action}}
	if force {
		form.Set("force", "1")
	}
	r := p.s.fakesCall("POST", page, form)
	require.Less(p.t, r.Status, 400, "%s %s: %s", action, page, r.Raw)
}

func (p *partnerClient) behaviour(b map[string]any) {
	p.t.Helper()
	r := p.s.fakesCall("POST", "/"+p.provider+"/behaviour", b)
	require.Equal(p.t, 200, r.Status, string(r.Raw))
}

// refunds counts the refunds the provider's fake holds for an order.
func (p *partnerClient) refunds(orderID string) int {
	p.t.Helper()
	if p.provider == "cashfree" {
		r := p.s.fakesCallWith("GET", "/cashfree/pg/orders/"+orderID+"/refunds", nil, map[string]string{"x-client-id": "cf-e2e", "x-client-secret": "cf-e2e-secret", "x-api-version": "2023-08-01"})
		var list []any
		require.NoError(p.t, json.Unmarshal(r.Raw, &list), string(r.Raw))
		return len(list)
	}
	r := p.s.fakesCallWith("GET", "/stripe/v1/refunds?limit=100", nil, map[string]string{"Authorization": "Bearer sk_test_e2e"})
	n := 0
	for _, it := range r.Body["data"].([]any) {
		if strings.Contains(fmt.Sprint(it), orderID) || strings.Contains(fmt.Sprint(it), "rf"+strings.ReplaceAll(orderID, "-", "")) {
			n++
		}
	}
	return n
}

func (p *partnerClient) await(token, id string, cond func(map[string]any) bool) map[string]any {
	p.t.Helper()
	var last map[string]any
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(250 * time.Millisecond) {
		r := p.as(token, "GET", "/partner/v1/gift-cards/orders/"+id, nil, "")
		require.Equal(p.t, 200, r.Status, string(r.Raw))
		if last = data(r); cond(last) {
			return last
		}
	}
	p.t.Fatalf("order %s never got there; last %v", id, last)
	return nil
}

func order(id, brand string, d float64) map[string]any {
	return map[string]any{"clientOrderId": id, "brandCode": brand, "denomination": d, "quantity": 1,
		"customer": map[string]any{"ref": "user-" + id, "phone": "+919876543210"}}
}

func data(r response) map[string]any {
	d, _ := r.Body["data"].(map[string]any)
	return d
}

func firstValue(brand map[string]any) float64 {
	if ds, ok := brand["denominations"].([]any); ok && len(ds) > 0 {
		return ds[0].(float64)
	}
	return brand["minValue"].(float64)
}

// fakesCall calls the fakes container: a url.Values body is sent as a form, anything else but
// nil as JSON.
func (s *stack) fakesCall(method, path string, body any) response {
	return s.fakesCallWith(method, path, body, nil)
}

func (s *stack) fakesCallWith(method, path string, body any, headers map[string]string) response {
	s.t.Helper()
	var rd io.Reader
	contentType := ""
	switch b := body.(type) {
	case nil:
	case url.Values:
		rd, contentType = strings.NewReader(b.Encode()), "application/x-www-form-urlencoded"
	default:
		raw, err := json.Marshal(b)
		require.NoError(s.t, err)
		rd, contentType = bytes.NewReader(raw), "application/json"
	}
	req, err := http.NewRequestWithContext(s.ctx, method, s.fakes.BaseURL+path, rd)
	require.NoError(s.t, err)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	client := &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Do(req)
	require.NoError(s.t, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(s.t, err)
	out := response{Status: res.StatusCode, Header: res.Header, Raw: raw}
	if bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{")) {
		require.NoError(s.t, json.Unmarshal(raw, &out.Body), string(raw))
	}
	return out
}
