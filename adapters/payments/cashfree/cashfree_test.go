package cashfree_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	adapter "github.com/rewardsco/rewards/adapters/payments/cashfree"
	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/payments"
	fake "github.com/rewardsco/rewards/fakes/cashfree"
)

const secret = "cf-secret"

type hook struct {
	header http.Header
	body   []byte
}

type bundle struct {
	t     *testing.T
	fake  *fake.Provider
	p     *adapter.Provider
	base  string
	mu    sync.Mutex
	hooks []hook
}

func setup(t *testing.T) *bundle {
	t.Helper()
	b := &bundle{t: t}
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		b.mu.Lock()
		b.hooks = append(b.hooks, hook{r.Header.Clone(), body})
		b.mu.Unlock()
	}))
	t.Cleanup(receiver.Close)
	b.fake = fake.New(fake.WithWebhookTarget(receiver.URL), fake.WithWebhookRetries(2, 10*time.Millisecond))
	t.Cleanup(b.fake.Close)
	mux := http.NewServeMux()
	b.fake.Register(mux)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	b.base = srv.URL
	b.p = adapter.New(adapter.Config{ClientID: "cf-id", ClientSecret: secret, BaseURL: srv.URL + "/cashfree"})
	return b
}

func (b *bundle) waitHooks(n int) []hook {
	b.t.Helper()
	var out []hook
	require.Eventually(b.t, func() bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		out = append([]hook(nil), b.hooks...)
		return len(out) >= n
	}, 5*time.Second, 5*time.Millisecond)
	return out
}

func (b *bundle) act(paymentSessionID, action string, force bool) (int, string) {
	b.t.Helper()
	form := url.Values{"action": {action}}
	if force {
		form.Set("force", "1")
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.PostForm(b.base+"/cashfree/pg/sandbox/"+paymentSessionID, form)
	require.NoError(b.t, err)
	defer res.Body.Close()
	return res.StatusCode, res.Header.Get("Location")
}

func request(orderID string) payments.SessionRequest {
	return payments.SessionRequest{OrderID: orderID, Amount: 50015, Currency: "INR", Description: "Gift card 500.15",
		ReturnURL: "https://partner.example/return", ExpiresAt: time.Now().Add(time.Hour),
		Customer: payments.Customer{Ref: "user 1@partner", Phone: "+919876543210", Email: "a@example.com"}}
}

func header(h http.Header) func(string) string { return h.Get }

func TestCreateIsIdempotentAndPayingIsSeen(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	s, err := b.p.CreateSession(ctx, request("ord-1"))
	require.NoError(t, err, "a customer ref with spaces and @ is made acceptable")
	require.Equal(t, "ord-1", s.ID)
	require.Equal(t, "ord-1", s.OrderID)
	require.True(t, strings.HasPrefix(s.PayerToken, "session_"), s.PayerToken)
	require.Equal(t, payments.Open, s.Status)
	require.EqualValues(t, 50015, s.Amount)
	require.Equal(t, "INR", s.Currency)

	again, err := b.p.CreateSession(ctx, request("ord-1"))
	require.NoError(t, err, "a retry meets the existing order")
	require.Equal(t, s.PayerToken, again.PayerToken)

	other := request("ord-1")
	other.Amount = 100
	_, err = b.p.CreateSession(ctx, other)
	require.ErrorIs(t, err, payments.ErrProvider, "the same order id with another amount is not the same order")

	status, to := b.act(s.PayerToken, "pay", false)
	require.Equal(t, http.StatusSeeOther, status)
	require.Equal(t, "https://partner.example/return", to)

	got, err := b.p.GetSession(ctx, s.ID)
	require.NoError(t, err)
	require.Equal(t, payments.Paid, got.Status)
	require.NotEmpty(t, got.PaymentID)

	h := b.waitHooks(1)[0]
	require.Equal(t, "2023-08-01", h.header.Get("x-webhook-version"))
	ev, err := b.p.ParseEvent(header(h.header), h.body, time.Now())
	require.NoError(t, err, "signed with the secret the order was created with")
	require.Equal(t, payments.SessionPaid, ev.Type)
	require.Equal(t, "ord-1", ev.OrderID)
	require.Equal(t, "ord-1", ev.SessionID)
	require.Equal(t, got.PaymentID, ev.PaymentID)
	require.Equal(t, "PAYMENT_SUCCESS_WEBHOOK:"+got.PaymentID, ev.ID)

	// A duplicate delivery has the same id.
	resend, err := http.Post(b.base+"/cashfree/events/"+url.PathEscape(ev.ID)+"/resend", "application/json", nil)
	require.NoError(t, err)
	resend.Body.Close()
	dup := b.waitHooks(2)[1]
	ev2, err := b.p.ParseEvent(header(dup.header), dup.body, time.Now())
	require.NoError(t, err)
	require.Equal(t, ev.ID, ev2.ID)

	ended, err := b.p.ExpireSession(ctx, s.ID)
	require.NoError(t, err, "a paid order cannot be terminated: it is returned as it is")
	require.Equal(t, payments.Paid, ended.Status)
	require.Equal(t, got.PaymentID, ended.PaymentID)
}

func TestExpireCancelAndNotFound(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	s, err := b.p.CreateSession(ctx, request("ord-exp"))
	require.NoError(t, err)
	ended, err := b.p.ExpireSession(ctx, s.ID)
	require.NoError(t, err)
	require.Equal(t, payments.Expired, ended.Status)
	again, err := b.p.ExpireSession(ctx, s.ID)
	require.NoError(t, err)
	require.Equal(t, payments.Expired, again.Status)

	c, err := b.p.CreateSession(ctx, request("ord-cancel"))
	require.NoError(t, err)
	status, _ := b.act(c.PayerToken, "cancel", false)
	require.Equal(t, http.StatusSeeOther, status)
	h := b.waitHooks(1)[0]
	ev, err := b.p.ParseEvent(header(h.header), h.body, time.Now())
	require.NoError(t, err)
	require.Equal(t, payments.SessionExpired, ev.Type)
	require.Equal(t, "ord-cancel", ev.OrderID)
	require.True(t, strings.HasPrefix(ev.ID, "PAYMENT_USER_DROPPED_WEBHOOK:"), ev.ID)
	got, err := b.p.GetSession(ctx, c.ID)
	require.NoError(t, err)
	require.Equal(t, payments.Expired, got.Status)

	_, err = b.p.GetSession(ctx, "ord-nope")
	require.ErrorIs(t, err, payments.ErrSessionNotFound)
	_, err = b.p.ExpireSession(ctx, "ord-nope")
	require.ErrorIs(t, err, payments.ErrSessionNotFound)

	noPhone := request("ord-phone")
	noPhone.Customer.Phone = ""
	_, err = b.p.CreateSession(ctx, noPhone)
	require.ErrorIs(t, err, errs.ErrInvalid)
	require.Contains(t, err.Error(), "phone")
}

func TestLateForcedPaymentAndRefundOnce(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	s, err := b.p.CreateSession(ctx, request("ord-late"))
	require.NoError(t, err)
	_, err = b.p.ExpireSession(ctx, s.ID)
	require.NoError(t, err)
	r := payments.RefundRequest{SessionID: s.ID, Amount: s.Amount, Reference: "refund-ord-late", Reason: "paid after expiry"}
	_, err = b.p.Refund(ctx, r)
	require.ErrorIs(t, err, payments.ErrProvider, "an unpaid order cannot be refunded")

	status, _ := b.act(s.PayerToken, "pay", false)
	require.Equal(t, http.StatusConflict, status)
	status, _ = b.act(s.PayerToken, "pay", true)
	require.Equal(t, http.StatusSeeOther, status)
	got, err := b.p.GetSession(ctx, s.ID)
	require.NoError(t, err)
	require.Equal(t, payments.Paid, got.Status)

	r.PaymentID = got.PaymentID
	first, err := b.p.Refund(ctx, r)
	require.NoError(t, err)
	require.Equal(t, "SUCCESS", first.Status)
	second, err := b.p.Refund(ctx, r)
	require.NoError(t, err)
	require.Equal(t, first.ID, second.ID, "the same reference refunds once")

	req, err := http.NewRequest(http.MethodGet, b.base+"/cashfree/pg/orders/ord-late/refunds", nil)
	require.NoError(t, err)
	req.Header.Set("x-client-id", "x")
	req.Header.Set("x-client-secret", "y")
	req.Header.Set("x-api-version", "2023-08-01")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	require.Equal(t, 1, strings.Count(string(raw), `"refund_id"`), string(raw))
}

func TestParseEventRejectsBadSignatureAndStaleTimestamp(t *testing.T) {
	t.Parallel()
	b := setup(t)
	s, err := b.p.CreateSession(context.Background(), request("ord-sig"))
	require.NoError(t, err)
	b.act(s.PayerToken, "pay", false)
	h := b.waitHooks(1)[0]
	_, err = b.p.ParseEvent(header(h.header), h.body, time.Now())
	require.NoError(t, err)

	tampered := []byte(strings.Replace(string(h.body), "ord-sig", "ord-evil", 1))
	_, err = b.p.ParseEvent(header(h.header), tampered, time.Now())
	require.ErrorIs(t, err, payments.ErrBadSignature)

	_, err = b.p.ParseEvent(func(string) string { return "" }, h.body, time.Now())
	require.ErrorIs(t, err, payments.ErrBadSignature)

	other := adapter.New(adapter.Config{ClientSecret: "another"})
	_, err = other.ParseEvent(header(h.header), h.body, time.Now())
	require.ErrorIs(t, err, payments.ErrBadSignature)

	_, err = b.p.ParseEvent(header(h.header), h.body, time.Now().Add(6*time.Minute))
	require.ErrorIs(t, err, payments.ErrBadSignature, "a timestamp older than 5 minutes is refused")

	old := strconv.FormatInt(time.Now().Add(-10*time.Minute).UnixMilli(), 10)
	signed := func(ts string, body []byte) func(string) string {
		return func(name string) string {
			switch name {
			case "X-Webhook-Timestamp":
				return ts
			case "X-Webhook-Signature":
				return fake.Sign(secret, ts, body)
			}
			return ""
		}
	}
	_, err = b.p.ParseEvent(signed(old, h.body), h.body, time.Now())
	require.ErrorIs(t, err, payments.ErrBadSignature, "a correctly signed stale event is refused")

	now := strconv.FormatInt(time.Now().UnixMilli(), 10)
	_, err = b.p.ParseEvent(signed(now, []byte("nope")), []byte("nope"), time.Now())
	require.ErrorIs(t, err, payments.ErrBadEvent)

	refund := []byte(`{"type":"REFUND_STATUS_WEBHOOK","event_time":"2024-01-01T10:00:00+05:30","data":{"order":{"order_id":"ord-sig"}}}`)
	ev, err := b.p.ParseEvent(signed(now, refund), refund, time.Now())
	require.NoError(t, err)
	require.Equal(t, payments.Ignored, ev.Type)
	require.Equal(t, "REFUND_STATUS_WEBHOOK:ord-sig", ev.ID)
}

func TestProviderFailureIsErrProvider(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.fake.SetBehaviour(fake.Behaviour{FailNext: 1})
	_, err := b.p.CreateSession(context.Background(), request("ord-fail"))
	require.ErrorIs(t, err, payments.ErrProvider)
	require.Equal(t, errs.Upstream, errs.KindOf(err))
	s, err := b.p.CreateSession(context.Background(), request("ord-fail"))
	require.NoError(t, err, "nothing was created by the failed call")
	require.Equal(t, payments.Open, s.Status)

	_, err = adapter.New(adapter.Config{BaseURL: "http://127.0.0.1:1"}).GetSession(context.Background(), "ord-x")
	require.ErrorIs(t, err, payments.ErrProvider)
}

// Without a client secret nothing verifies: an event signed with the empty key is refused.
func TestEmptyClientSecretNeverVerifies(t *testing.T) {
	t.Parallel()
	body := []byte(`{"type":"PAYMENT_SUCCESS_WEBHOOK","event_time":"2026-01-01T00:00:00Z","data":{"order":{"order_id":"o-1"},"payment":{"cf_payment_id":1}}}`)
	now := time.Now()
	ts := strconv.FormatInt(now.Unix(), 10)
	mac := hmac.New(sha256.New, []byte(""))
	mac.Write([]byte(ts + string(body)))
	sig := base64.StdEncoding.EncodeToString(mac.Sum(nil))
	header := func(name string) string {
		switch name {
		case "X-Webhook-Timestamp":
			return ts
		case "X-Webhook-Signature":
			return sig
		}
		return ""
	}
	p := adapter.New(adapter.Config{ClientID: "id", ClientSecret: ""})
	_, err := p.ParseEvent(header, body, now)
	require.ErrorIs(t, err, payments.ErrBadSignature)
}
