package stripe_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	stripego "github.com/stripe/stripe-go/v76"
	"github.com/stripe/stripe-go/v76/webhook"

	"github.com/rewardsco/rewards/fakes/stripe"
)

const secret = "whsec_test"

// bundle is a fake served on httptest with a webhook receiver that fails its first failFirst
// requests.
type bundle struct {
	t         *testing.T
	p         *stripe.Provider
	url       string
	now       atomic.Int64
	failFirst atomic.Int32
	mu        sync.Mutex
	received  []string // event ids in arrival order
	bodies    [][]byte
	headers   []http.Header
}

func setup(t *testing.T, opts ...stripe.Option) *bundle {
	t.Helper()
	b := &bundle{t: t}
	b.now.Store(time.Now().Unix())
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		require.Equal(t, "/webhooks/stripe", r.URL.Path)
		if b.failFirst.Add(-1) >= 0 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var ev struct{ ID string }
		_ = json.Unmarshal(body, &ev)
		b.mu.Lock()
		b.received = append(b.received, ev.ID)
		b.bodies = append(b.bodies, body)
		b.headers = append(b.headers, r.Header.Clone())
		b.mu.Unlock()
	}))
	t.Cleanup(receiver.Close)
	opts = append([]stripe.Option{stripe.WithWebhookSecret(secret), stripe.WithWebhookTarget(receiver.URL),
		stripe.WithWebhookRetries(3, 5*time.Millisecond), stripe.WithSweepInterval(0),
		stripe.WithClock(func() time.Time { return time.Unix(b.now.Load(), 0) })}, opts...)
	b.p = stripe.New(opts...)
	t.Cleanup(b.p.Close)
	mux := http.NewServeMux()
	b.p.Register(mux)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	b.url = srv.URL
	return b
}

// call makes an API request (form-encoded when form is not nil) and decodes the answer.
func (b *bundle) call(method, path string, form url.Values, headers map[string]string, out any) *http.Response {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, b.url+path, body)
	require.NoError(b.t, err)
	req.Header.Set("Authorization", "Bearer sk_test_any")
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(b.t, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(b.t, err)
	if out != nil {
		require.NoError(b.t, json.Unmarshal(raw, out), string(raw))
	}
	return res
}

func (b *bundle) postJSON(path, body string) *http.Response {
	b.t.Helper()
	res, err := http.Post(b.url+path, "application/json", bytes.NewReader([]byte(body)))
	require.NoError(b.t, err)
	b.t.Cleanup(func() { res.Body.Close() })
	return res
}

func sessionForm(ref string) url.Values {
	return url.Values{"mode": {"payment"}, "success_url": {"https://r.example/ok"}, "cancel_url": {"https://r.example/no"},
		"client_reference_id": {ref}, "line_items[0][price_data][currency]": {"usd"},
		"line_items[0][price_data][unit_amount]": {"1250"}, "line_items[0][price_data][product_data][name]": {"Card"},
		"line_items[0][quantity]": {"2"}, "metadata[order_id]": {ref}}
}

func (b *bundle) create(ref string) stripe.Session {
	b.t.Helper()
	var s stripe.Session
	res := b.call(http.MethodPost, "/stripe/v1/checkout/sessions", sessionForm(ref), nil, &s)
	require.Equal(b.t, http.StatusOK, res.StatusCode)
	return s
}

func (b *bundle) act(id string, form url.Values) int {
	b.t.Helper()
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.PostForm(b.url+"/stripe/checkout/"+id, form)
	require.NoError(b.t, err)
	res.Body.Close()
	return res.StatusCode
}

func (b *bundle) waitReceived(n int) []string {
	b.t.Helper()
	var ids []string
	require.Eventually(b.t, func() bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		ids = append([]string(nil), b.received...)
		return len(ids) >= n
	}, 5*time.Second, 5*time.Millisecond)
	return ids
}

func TestAPIVersionIsStripeGos(t *testing.T) {
	t.Parallel()
	require.Equal(t, stripego.APIVersion, stripe.APIVersion)
}

func TestSessionLifecycleAndSignedEvents(t *testing.T) {
	t.Parallel()
	b := setup(t)
	s := b.create("ord-1")
	require.Equal(t, stripe.StatusOpen, s.Status)
	require.Equal(t, stripe.Unpaid, s.PaymentStatus)
	require.EqualValues(t, 2500, s.AmountTotal)
	require.Equal(t, b.url+"/stripe/checkout/"+s.ID, *s.URL)
	require.Nil(t, s.PaymentIntent)

	page, err := http.Get(*s.URL)
	require.NoError(t, err)
	html, _ := io.ReadAll(page.Body)
	page.Body.Close()
	require.Contains(t, string(html), `value="pay"`)
	require.Contains(t, string(html), "25.00 USD")

	require.Equal(t, http.StatusSeeOther, b.act(s.ID, url.Values{"action": {"pay"}}))
	require.Equal(t, http.StatusConflict, b.act(s.ID, url.Values{"action": {"pay"}}), "a paid session is not paid twice")

	var got stripe.Session
	b.call(http.MethodGet, "/stripe/v1/checkout/sessions/"+s.ID, nil, nil, &got)
	require.Equal(t, stripe.StatusComplete, got.Status)
	require.Equal(t, stripe.Paid, got.PaymentStatus)
	require.True(t, strings.HasPrefix(*got.PaymentIntent, "pi_"))
	require.Nil(t, got.URL, "url is null once the session is not open, as at Stripe")

	b.waitReceived(1)
	b.mu.Lock()
	body, h := b.bodies[0], b.headers[0]
	b.mu.Unlock()
	ev, err := webhook.ConstructEvent(body, h.Get("Stripe-Signature"), secret)
	require.NoError(t, err, "stripe-go accepts the fake's events")
	require.EqualValues(t, "checkout.session.completed", ev.Type)
	var inEvent stripego.CheckoutSession
	require.NoError(t, json.Unmarshal(ev.Data.Raw, &inEvent))
	require.Equal(t, "ord-1", inEvent.ClientReferenceID)
	require.Equal(t, stripego.CheckoutSessionPaymentStatusPaid, inEvent.PaymentStatus)
	_, err = webhook.ConstructEvent(body, h.Get("Stripe-Signature"), "whsec_wrong")
	require.Error(t, err)

	var e struct{ Error stripe.ErrorBody }
	res := b.call(http.MethodPost, "/stripe/v1/checkout/sessions/"+s.ID+"/expire", url.Values{}, nil, &e)
	require.Equal(t, http.StatusBadRequest, res.StatusCode)
	require.Equal(t, "invalid_request_error", e.Error.Type)
	require.Equal(t, "session_not_open", e.Error.Code)
	require.NotEmpty(t, e.Error.Message)

	res = b.call(http.MethodGet, "/stripe/v1/checkout/sessions/cs_test_nope", nil, nil, &e)
	require.Equal(t, http.StatusNotFound, res.StatusCode)
	require.Equal(t, "resource_missing", e.Error.Code)
}

func TestIdempotencyKey(t *testing.T) {
	t.Parallel()
	b := setup(t)
	key := map[string]string{"Idempotency-Key": "k1"}
	var first, second stripe.Session
	b.call(http.MethodPost, "/stripe/v1/checkout/sessions", sessionForm("ord-k"), key, &first)
	res := b.call(http.MethodPost, "/stripe/v1/checkout/sessions", sessionForm("ord-k"), key, &second)
	require.Equal(t, first.ID, second.ID)
	require.Equal(t, "true", res.Header.Get("Idempotent-Replayed"))

	var e struct{ Error stripe.ErrorBody }
	res = b.call(http.MethodPost, "/stripe/v1/checkout/sessions", sessionForm("ord-other"), key, &e)
	require.Equal(t, http.StatusBadRequest, res.StatusCode)
	require.Equal(t, "idempotency_error", e.Error.Type)

	// A refusal of the parameters is not kept: the same key works once they are right.
	bad := sessionForm("ord-v")
	bad.Del("mode")
	res = b.call(http.MethodPost, "/stripe/v1/checkout/sessions", bad, map[string]string{"Idempotency-Key": "k2"}, &e)
	require.Equal(t, http.StatusBadRequest, res.StatusCode)
	require.Equal(t, "parameter_missing", e.Error.Code)
	res = b.call(http.MethodPost, "/stripe/v1/checkout/sessions", sessionForm("ord-v"), map[string]string{"Idempotency-Key": "k2"}, nil)
	require.Equal(t, http.StatusOK, res.StatusCode)

	// Refunds: the same key refunds once; a new key beyond what is left is refused.
	s := b.create("ord-r")
	b.act(s.ID, url.Values{"action": {"pay"}})
	var paid stripe.Session
	b.call(http.MethodGet, "/stripe/v1/checkout/sessions/"+s.ID, nil, nil, &paid)
	form := url.Values{"payment_intent": {*paid.PaymentIntent}}
	var r1, r2 stripe.Refund
	b.call(http.MethodPost, "/stripe/v1/refunds", form, map[string]string{"Idempotency-Key": "ref-1"}, &r1)
	b.call(http.MethodPost, "/stripe/v1/refunds", form, map[string]string{"Idempotency-Key": "ref-1"}, &r2)
	require.Equal(t, r1.ID, r2.ID)
	require.EqualValues(t, 2500, r1.Amount)
	res = b.call(http.MethodPost, "/stripe/v1/refunds", form, map[string]string{"Idempotency-Key": "ref-2"}, &e)
	require.Equal(t, http.StatusBadRequest, res.StatusCode)
	require.Equal(t, "charge_already_refunded", e.Error.Code)
	var list struct {
		Data []stripe.Refund `json:"data"`
	}
	b.call(http.MethodGet, "/stripe/v1/refunds?payment_intent="+*paid.PaymentIntent, nil, nil, &list)
	require.Len(t, list.Data, 1)
}

func TestExpiryByTimeSendsTheEventAndForceStillPays(t *testing.T) {
	t.Parallel()
	b := setup(t)
	form := sessionForm("ord-t")
	form.Set("expires_at", strconv.FormatInt(b.now.Load()+60, 10))
	var s stripe.Session
	b.call(http.MethodPost, "/stripe/v1/checkout/sessions", form, nil, &s)
	b.now.Add(61)
	var got stripe.Session
	b.call(http.MethodGet, "/stripe/v1/checkout/sessions/"+s.ID, nil, nil, &got)
	require.Equal(t, stripe.StatusExpired, got.Status)
	b.waitReceived(1)

	require.Equal(t, http.StatusConflict, b.act(s.ID, url.Values{"action": {"pay"}}))
	require.Equal(t, http.StatusSeeOther, b.act(s.ID, url.Values{"action": {"pay"}, "force": {"1"}}))
	b.waitReceived(2)
	events := b.p.Events()
	require.Len(t, events, 2)
	require.Equal(t, []string{"checkout.session.expired", "checkout.session.completed"}, []string{events[0].Type, events[1].Type})
}

func TestWebhookRetriesDropHoldResendRelease(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.failFirst.Store(2)
	s := b.create("ord-w")
	b.act(s.ID, url.Values{"action": {"pay"}})
	b.waitReceived(1)
	require.Eventually(t, func() bool { return b.p.Events()[0].Delivered }, time.Second, 5*time.Millisecond)
	require.Equal(t, 3, b.p.Events()[0].Attempts, "two failures, then delivered")

	// Dropped: recorded, not sent; a resend sends it (and sends a delivered one again).
	require.Equal(t, http.StatusOK, b.postJSON("/stripe/behaviour", `{"dropWebhooks":true}`).StatusCode)
	d := b.create("ord-d")
	b.act(d.ID, url.Values{"action": {"cancel"}})
	var events []stripe.Event
	b.call(http.MethodGet, "/stripe/events", nil, nil, &events)
	require.Len(t, events, 2)
	require.True(t, events[1].Dropped)
	require.False(t, events[1].Delivered)
	require.Len(t, b.waitReceived(1), 1)
	var resent stripe.Event
	b.call(http.MethodPost, "/stripe/events/"+events[1].ID+"/resend", url.Values{}, nil, &resent)
	require.True(t, resent.Delivered)
	b.call(http.MethodPost, "/stripe/events/"+events[0].ID+"/resend", url.Values{}, nil, nil)
	require.Equal(t, []string{events[0].ID, events[1].ID, events[0].ID}, b.waitReceived(3), "a resend is a duplicate")

	// Held: kept until released; reverse sends newest first.
	b.postJSON("/stripe/behaviour", `{"holdWebhooks":true}`)
	h1, h2 := b.create("ord-h1"), b.create("ord-h2")
	b.act(h1.ID, url.Values{"action": {"cancel"}})
	b.act(h2.ID, url.Values{"action": {"pay"}})
	events = b.p.Events()
	require.True(t, events[2].Held)
	require.True(t, events[3].Held)
	require.Len(t, b.waitReceived(3), 3)
	b.postJSON("/stripe/behaviour", `{}`)
	res := b.postJSON("/stripe/webhooks/release", `{"reverse":true}`)
	require.Equal(t, http.StatusOK, res.StatusCode)
	got := b.waitReceived(5)
	require.Equal(t, []string{events[3].ID, events[2].ID}, got[3:], "released newest first")
}

func TestBehaviourAndSecretKey(t *testing.T) {
	t.Parallel()
	b := setup(t, stripe.WithSecretKey("sk_test_right"))
	res := b.call(http.MethodGet, "/stripe/v1/refunds", nil, nil, nil)
	require.Equal(t, http.StatusUnauthorized, res.StatusCode, "another key is refused")
	ok := map[string]string{"Authorization": "Bearer sk_test_right"}
	require.Equal(t, http.StatusOK, b.call(http.MethodGet, "/stripe/v1/refunds", nil, ok, nil).StatusCode)

	b.postJSON("/stripe/behaviour", `{"failNext":1,"failStatus":502}`)
	var e struct{ Error stripe.ErrorBody }
	res = b.call(http.MethodPost, "/stripe/v1/checkout/sessions", sessionForm("ord-b"), ok, &e)
	require.Equal(t, http.StatusBadGateway, res.StatusCode)
	require.Equal(t, "api_error", e.Error.Type)
	require.Equal(t, http.StatusOK, b.call(http.MethodPost, "/stripe/v1/checkout/sessions", sessionForm("ord-b"), ok, nil).StatusCode)

	b.postJSON("/stripe/behaviour", `{"status":429}`)
	require.Equal(t, http.StatusTooManyRequests, b.call(http.MethodGet, "/stripe/v1/refunds", nil, ok, nil).StatusCode)
	b.postJSON("/stripe/behaviour", `{"stallMs":150}`)
	start := time.Now()
	require.Equal(t, http.StatusOK, b.call(http.MethodGet, "/stripe/v1/refunds", nil, ok, nil).StatusCode)
	require.GreaterOrEqual(t, time.Since(start), 150*time.Millisecond)
	b.postJSON("/stripe/behaviour", `{}`)
	require.Equal(t, http.StatusOK, b.call(http.MethodGet, "/stripe/v1/refunds", nil, ok, nil).StatusCode)
	require.Equal(t, http.StatusBadRequest, b.postJSON("/stripe/behaviour", `{"status":7}`).StatusCode)
}
