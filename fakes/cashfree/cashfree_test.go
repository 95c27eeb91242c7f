package cashfree_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/fakes/cashfree"
)

type received struct {
	header http.Header
	body   []byte
}

type bundle struct {
	t         *testing.T
	p         *cashfree.Provider
	url       string
	now       atomic.Int64
	failFirst atomic.Int32
	mu        sync.Mutex
	got       []received
	id        string
	secret    string
}

func setup(t *testing.T, opts ...cashfree.Option) *bundle {
	t.Helper()
	b := &bundle{t: t, id: "any-id", secret: "merchant-secret"}
	b.now.Store(time.Now().Unix())
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		require.Equal(t, "/webhooks/cashfree", r.URL.Path)
		if b.failFirst.Add(-1) >= 0 {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		body, _ := io.ReadAll(r.Body)
		b.mu.Lock()
		b.got = append(b.got, received{r.Header.Clone(), body})
		b.mu.Unlock()
	}))
	t.Cleanup(receiver.Close)
	opts = append([]cashfree.Option{cashfree.WithWebhookTarget(receiver.URL), cashfree.WithWebhookRetries(3, 5*time.Millisecond),
		cashfree.WithClock(func() time.Time { return time.Unix(b.now.Load(), 0) })}, opts...)
	b.p = cashfree.New(opts...)
	t.Cleanup(b.p.Close)
	mux := http.NewServeMux()
	b.p.Register(mux)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	b.url = srv.URL
	return b
}

func (b *bundle) call(method, path string, body any, out any) int {
	b.t.Helper()
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		require.NoError(b.t, err)
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, b.url+path, rd)
	require.NoError(b.t, err)
	req.Header.Set("x-client-id", b.id)
	req.Header.Set("x-client-secret", b.secret)
	req.Header.Set("x-api-version", cashfree.APIVersion)
	res, err := http.DefaultClient.Do(req)
	require.NoError(b.t, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(b.t, err)
	if out != nil {
		require.NoError(b.t, json.Unmarshal(raw, out), string(raw))
	}
	return res.StatusCode
}

func (b *bundle) act(session string, form url.Values) int {
	b.t.Helper()
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.PostForm(b.url+"/cashfree/pg/sandbox/"+session, form)
	require.NoError(b.t, err)
	res.Body.Close()
	return res.StatusCode
}

func (b *bundle) wait(n int) []received {
	b.t.Helper()
	var out []received
	require.Eventually(b.t, func() bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		out = append([]received(nil), b.got...)
		return len(out) >= n
	}, 5*time.Second, 5*time.Millisecond)
	return out
}

func orderBody(id string) map[string]any {
	return map[string]any{"order_id": id, "order_amount": 500.15, "order_currency": "INR",
		"customer_details": map[string]any{"customer_id": "user_1", "customer_phone": "9876543210"},
		"order_meta":       map[string]any{"return_url": "https://r.example/back?o={order_id}"}}
}

func TestOrderLifecycleAndSignedWebhook(t *testing.T) {
	t.Parallel()
	b := setup(t)
	var o cashfree.Order
	require.Equal(t, http.StatusOK, b.call(http.MethodPost, "/cashfree/pg/orders", orderBody("ord-1"), &o))
	require.Equal(t, cashfree.Active, o.OrderStatus)
	require.EqualValues(t, 50015, o.OrderAmount)
	require.NotEmpty(t, o.PaymentSessionID)

	var e cashfree.APIError
	require.Equal(t, http.StatusConflict, b.call(http.MethodPost, "/cashfree/pg/orders", orderBody("ord-1"), &e))
	require.Equal(t, "order_already_exists", e.Code)

	noPhone := orderBody("ord-2")
	noPhone["customer_details"] = map[string]any{"customer_id": "user_1"}
	require.Equal(t, http.StatusBadRequest, b.call(http.MethodPost, "/cashfree/pg/orders", noPhone, &e))
	require.Equal(t, "customer_details.customer_phone_missing", e.Code)
	require.Equal(t, http.StatusNotFound, b.call(http.MethodGet, "/cashfree/pg/orders/ord-2", nil, &e), "a refused order is not kept")

	var refusedRefund cashfree.APIError
	require.Equal(t, http.StatusBadRequest, b.call(http.MethodPost, "/cashfree/pg/orders/ord-1/refunds",
		map[string]any{"refund_amount": 1, "refund_id": "r-1"}, &refusedRefund))
	require.Equal(t, "refund_not_allowed", refusedRefund.Code)

	page, err := http.Get(b.url + "/cashfree/pg/sandbox/" + o.PaymentSessionID)
	require.NoError(t, err)
	html, _ := io.ReadAll(page.Body)
	page.Body.Close()
	require.Contains(t, string(html), "500.15 INR")

	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.PostForm(b.url+"/cashfree/pg/sandbox/"+o.PaymentSessionID, url.Values{"action": {"pay"}})
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	require.Equal(t, "https://r.example/back?o=ord-1", res.Header.Get("Location"))

	b.call(http.MethodGet, "/cashfree/pg/orders/ord-1", nil, &o)
	require.Equal(t, cashfree.PaidStatus, o.OrderStatus)
	var pays []cashfree.Payment
	b.call(http.MethodGet, "/cashfree/pg/orders/ord-1/payments", nil, &pays)
	require.Len(t, pays, 1)
	require.Equal(t, "SUCCESS", pays[0].PaymentStatus)

	require.Equal(t, http.StatusBadRequest, b.call(http.MethodPatch, "/cashfree/pg/orders/ord-1", map[string]string{"order_status": "TERMINATED"}, &e))
	require.Equal(t, "order_not_active", e.Code)

	h := b.wait(1)[0]
	ts := h.header.Get(cashfree.TimestampHeader)
	ms, err := strconv.ParseInt(ts, 10, 64)
	require.NoError(t, err)
	require.WithinDuration(t, time.Now(), time.UnixMilli(ms), 5*time.Second, "the timestamp is in milliseconds")
	require.Equal(t, cashfree.Sign("merchant-secret", ts, h.body), h.header.Get(cashfree.SignatureHeader),
		"signed with the secret the order was created with")
	var ev struct {
		Type string
		Data struct {
			Order struct {
				OrderID string `json:"order_id"`
			}
			Payment struct {
				CFPaymentID   string `json:"cf_payment_id"`
				PaymentStatus string `json:"payment_status"`
			}
		}
	}
	require.NoError(t, json.Unmarshal(h.body, &ev))
	require.Equal(t, cashfree.PaymentSuccess, ev.Type)
	require.Equal(t, "ord-1", ev.Data.Order.OrderID)
	require.Equal(t, pays[0].CFPaymentID, ev.Data.Payment.CFPaymentID)

	// Refunds: idempotent by refund_id, never beyond the amount.
	var r1, r2 cashfree.Refund
	require.Equal(t, http.StatusOK, b.call(http.MethodPost, "/cashfree/pg/orders/ord-1/refunds", map[string]any{"refund_amount": 500.15, "refund_id": "r-1"}, &r1))
	require.Equal(t, http.StatusOK, b.call(http.MethodPost, "/cashfree/pg/orders/ord-1/refunds", map[string]any{"refund_amount": 500.15, "refund_id": "r-1"}, &r2))
	require.Equal(t, r1.CFRefundID, r2.CFRefundID)
	require.Equal(t, http.StatusConflict, b.call(http.MethodPost, "/cashfree/pg/orders/ord-1/refunds", map[string]any{"refund_amount": 1, "refund_id": "r-1"}, &e))
	require.Equal(t, http.StatusBadRequest, b.call(http.MethodPost, "/cashfree/pg/orders/ord-1/refunds", map[string]any{"refund_amount": 1, "refund_id": "r-2"}, &e))
	require.Equal(t, "refund_amount_exceeded", e.Code)
	var refunds []cashfree.Refund
	b.call(http.MethodGet, "/cashfree/pg/orders/ord-1/refunds", nil, &refunds)
	require.Len(t, refunds, 1)
}

func TestExpiryTerminationAndForcedPayment(t *testing.T) {
	t.Parallel()
	b := setup(t)
	body := orderBody("ord-e")
	body["order_expiry_time"] = time.Unix(b.now.Load()+60, 0).Format(time.RFC3339)
	var o cashfree.Order
	require.Equal(t, http.StatusOK, b.call(http.MethodPost, "/cashfree/pg/orders", body, &o))
	b.now.Add(60)
	b.call(http.MethodGet, "/cashfree/pg/orders/ord-e", nil, &o)
	require.Equal(t, cashfree.Expired, o.OrderStatus)
	require.Equal(t, http.StatusConflict, b.act(o.PaymentSessionID, url.Values{"action": {"pay"}}))
	require.Equal(t, http.StatusSeeOther, b.act(o.PaymentSessionID, url.Values{"action": {"pay"}, "force": {"1"}}))
	b.call(http.MethodGet, "/cashfree/pg/orders/ord-e", nil, &o)
	require.Equal(t, cashfree.PaidStatus, o.OrderStatus, "a late capture pays an expired order")

	var t1 cashfree.Order
	b.call(http.MethodPost, "/cashfree/pg/orders", orderBody("ord-t"), &t1)
	require.Equal(t, http.StatusOK, b.call(http.MethodPatch, "/cashfree/pg/orders/ord-t", map[string]string{"order_status": "TERMINATED"}, &t1))
	require.Equal(t, cashfree.Terminated, t1.OrderStatus)

	var c cashfree.Order
	b.call(http.MethodPost, "/cashfree/pg/orders", orderBody("ord-c"), &c)
	require.Equal(t, http.StatusSeeOther, b.act(c.PaymentSessionID, url.Values{"action": {"cancel"}}))
	b.call(http.MethodGet, "/cashfree/pg/orders/ord-c", nil, &c)
	require.Equal(t, cashfree.Terminated, c.OrderStatus)
	events := b.p.Events()
	require.Len(t, events, 2)
	require.Equal(t, []string{cashfree.PaymentSuccess, cashfree.PaymentUserDropped}, []string{events[0].Type, events[1].Type})
}

func TestRetriesHoldReleaseAndBehaviour(t *testing.T) {
	t.Parallel()
	b := setup(t, cashfree.WithClientID("cid"), cashfree.WithClientSecret("configured"))
	var e cashfree.APIError
	require.Equal(t, http.StatusUnauthorized, b.call(http.MethodPost, "/cashfree/pg/orders", orderBody("ord-a"), &e))
	require.Equal(t, "authentication_error", e.Type)
	b.id, b.secret = "cid", "configured"

	b.failFirst.Store(2)
	var o cashfree.Order
	b.call(http.MethodPost, "/cashfree/pg/orders", orderBody("ord-r"), &o)
	b.act(o.PaymentSessionID, url.Values{"action": {"pay"}})
	h := b.wait(1)[0]
	require.Equal(t, cashfree.Sign("configured", h.header.Get(cashfree.TimestampHeader), h.body), h.header.Get(cashfree.SignatureHeader))
	require.Eventually(t, func() bool { return b.p.Events()[0].Delivered }, time.Second, 5*time.Millisecond)
	require.Equal(t, 3, b.p.Events()[0].Attempts)

	b.p.SetBehaviour(cashfree.Behaviour{HoldWebhooks: true})
	var o1, o2 cashfree.Order
	b.call(http.MethodPost, "/cashfree/pg/orders", orderBody("ord-h1"), &o1)
	b.call(http.MethodPost, "/cashfree/pg/orders", orderBody("ord-h2"), &o2)
	b.act(o1.PaymentSessionID, url.Values{"action": {"pay"}})
	b.act(o2.PaymentSessionID, url.Values{"action": {"pay"}})
	require.True(t, b.p.Events()[2].Held)
	res, err := http.Post(b.url+"/cashfree/webhooks/release", "application/json", bytes.NewReader([]byte(`{"reverse":true}`)))
	require.NoError(t, err)
	res.Body.Close()
	got := b.wait(3)
	var first struct {
		Data struct {
			Order struct {
				OrderID string `json:"order_id"`
			}
		}
	}
	require.NoError(t, json.Unmarshal(got[1].body, &first))
	require.Equal(t, "ord-h2", first.Data.Order.OrderID, "released newest first")

	res, err = http.Post(b.url+"/cashfree/behaviour", "application/json", bytes.NewReader([]byte(`{"failNext":1,"failStatus":503}`)))
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusServiceUnavailable, b.call(http.MethodGet, "/cashfree/pg/orders/ord-r", nil, &e))
	require.Equal(t, http.StatusOK, b.call(http.MethodGet, "/cashfree/pg/orders/ord-r", nil, &o))
}
