package stripe_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
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

	adapter "github.com/rewardsco/rewards/adapters/payments/stripe"
	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/payments"
	fake "github.com/rewardsco/rewards/fakes/stripe"
)

const secret = "whsec_test"

// hook is one webhook the service side received.
type hook struct {
	header http.Header
	body   []byte
}

// bundle is a fake Stripe, an adapter speaking to it, and the webhooks the fake sent.
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
	b.fake = fake.New(fake.WithWebhookSecret(secret), fake.WithWebhookTarget(receiver.URL), fake.WithWebhookRetries(2, 10*time.Millisecond))
	t.Cleanup(b.fake.Close)
	mux := http.NewServeMux()
	b.fake.Register(mux)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	b.base = srv.URL
	b.p = adapter.New(adapter.Config{SecretKey: "sk_test_x", WebhookSecret: secret, BaseURL: srv.URL + "/stripe"})
	return b
}

// waitHooks waits until n webhooks arrived and returns them.
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

// act presses a button of the hosted page without following the redirect; it returns the
// status and the Location.
func (b *bundle) act(sessionID, action string, force bool) (int, string) {
	b.t.Helper()
	form := url.Values{"action": {action}}
	if force {
		form.Set("force", "1")
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.PostForm(b.base+"/stripe/checkout/"+sessionID, form)
	require.NoError(b.t, err)
	defer res.Body.Close()
	return res.StatusCode, res.Header.Get("Location")
}

// expiry is the deadline of every order of these tests: a retry of a creation carries the order's
// recorded deadline, so the same parameters (Stripe refuses a key reused with others).
var expiry = time.Now().Add(time.Hour).Truncate(time.Second)

func request(orderID string) payments.SessionRequest {
	return payments.SessionRequest{OrderID: orderID, Amount: 1099, Currency: "USD", Description: "Gift card 10.99",
		ReturnURL: "https://partner.example/return", ExpiresAt: expiry,
		Customer: payments.Customer{Ref: "user-1", Email: "a@example.com"}}
}

func header(h http.Header) func(string) string { return h.Get }

func TestCreateIsIdempotentAndPayingIsSeen(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	s, err := b.p.CreateSession(ctx, request("ord-1"))
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(s.ID, "cs_test_"), s.ID)
	require.Equal(t, b.base+"/stripe/checkout/"+s.ID, s.PayerToken)
	require.Equal(t, payments.Open, s.Status)
	require.Equal(t, "ord-1", s.OrderID)
	require.EqualValues(t, 1099, s.Amount)
	require.Equal(t, "USD", s.Currency)

	again, err := b.p.CreateSession(ctx, request("ord-1"))
	require.NoError(t, err)
	require.Equal(t, s.ID, again.ID, "the same order gives the same session")

	status, to := b.act(s.ID, "pay", false)
	require.Equal(t, http.StatusSeeOther, status)
	require.Equal(t, "https://partner.example/return", to)

	got, err := b.p.GetSession(ctx, s.ID)
	require.NoError(t, err)
	require.Equal(t, payments.Paid, got.Status)
	require.True(t, strings.HasPrefix(got.PaymentID, "pi_"), got.PaymentID)

	h := b.waitHooks(1)[0]
	ev, err := b.p.ParseEvent(header(h.header), h.body, time.Now())
	require.NoError(t, err)
	require.Equal(t, payments.SessionPaid, ev.Type)
	require.Equal(t, s.ID, ev.SessionID)
	require.Equal(t, "ord-1", ev.OrderID)
	require.Equal(t, got.PaymentID, ev.PaymentID)
	require.True(t, strings.HasPrefix(ev.ID, "evt_"))

	// A paid session cannot be expired: ExpireSession answers it as it is.
	ended, err := b.p.ExpireSession(ctx, s.ID)
	require.NoError(t, err)
	require.Equal(t, payments.Paid, ended.Status)
}

func TestExpireAndCancel(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	s, err := b.p.CreateSession(ctx, request("ord-exp"))
	require.NoError(t, err)
	ended, err := b.p.ExpireSession(ctx, s.ID)
	require.NoError(t, err)
	require.Equal(t, payments.Expired, ended.Status)
	again, err := b.p.ExpireSession(ctx, s.ID)
	require.NoError(t, err, "expiring an expired session returns it")
	require.Equal(t, payments.Expired, again.Status)
	h := b.waitHooks(1)[0]
	ev, err := b.p.ParseEvent(header(h.header), h.body, time.Now())
	require.NoError(t, err)
	require.Equal(t, payments.SessionExpired, ev.Type)
	require.Equal(t, "ord-exp", ev.OrderID)

	c, err := b.p.CreateSession(ctx, request("ord-cancel"))
	require.NoError(t, err)
	status, to := b.act(c.ID, "cancel", false)
	require.Equal(t, http.StatusSeeOther, status)
	require.Equal(t, "https://partner.example/return", to)
	got, err := b.p.GetSession(ctx, c.ID)
	require.NoError(t, err)
	require.Equal(t, payments.Expired, got.Status)

	_, err = b.p.GetSession(ctx, "cs_test_nope")
	require.ErrorIs(t, err, payments.ErrSessionNotFound)
	_, err = b.p.ExpireSession(ctx, "cs_test_nope")
	require.ErrorIs(t, err, payments.ErrSessionNotFound)
}

func TestLateForcedPaymentAndRefundOnce(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	s, err := b.p.CreateSession(ctx, request("ord-late"))
	require.NoError(t, err)
	_, err = b.p.ExpireSession(ctx, s.ID)
	require.NoError(t, err)
	status, _ := b.act(s.ID, "pay", false)
	require.Equal(t, http.StatusConflict, status, "an expired session is not paid without force")
	status, _ = b.act(s.ID, "pay", true)
	require.Equal(t, http.StatusSeeOther, status)

	hooks := b.waitHooks(2)
	var types []payments.EventType
	for _, h := range hooks {
		ev, err := b.p.ParseEvent(header(h.header), h.body, time.Now())
		require.NoError(t, err)
		types = append(types, ev.Type)
	}
	require.ElementsMatch(t, []payments.EventType{payments.SessionExpired, payments.SessionPaid}, types)

	got, err := b.p.GetSession(ctx, s.ID)
	require.NoError(t, err)
	require.Equal(t, payments.Paid, got.Status)

	r := payments.RefundRequest{SessionID: s.ID, PaymentID: got.PaymentID, Amount: got.Amount, Reference: "refund-ord-late", Reason: "paid after expiry"}
	first, err := b.p.Refund(ctx, r)
	require.NoError(t, err)
	require.Equal(t, "succeeded", first.Status)
	second, err := b.p.Refund(ctx, r)
	require.NoError(t, err)
	require.Equal(t, first.ID, second.ID, "the same reference refunds once")

	req, err := http.NewRequest(http.MethodGet, b.base+"/stripe/v1/refunds?payment_intent="+got.PaymentID, nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer sk_test_x")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	require.Equal(t, 1, strings.Count(string(raw), `"id":"re_`), string(raw))
}

func TestParseEventRejectsBadSignatureAndStaleTimestamp(t *testing.T) {
	t.Parallel()
	b := setup(t)
	s, err := b.p.CreateSession(context.Background(), request("ord-sig"))
	require.NoError(t, err)
	b.act(s.ID, "pay", false)
	h := b.waitHooks(1)[0]

	_, err = b.p.ParseEvent(header(h.header), h.body, time.Now())
	require.NoError(t, err)

	tampered := []byte(strings.Replace(string(h.body), "ord-sig", "ord-evil", 1))
	_, err = b.p.ParseEvent(header(h.header), tampered, time.Now())
	require.ErrorIs(t, err, payments.ErrBadSignature)

	_, err = b.p.ParseEvent(func(string) string { return "" }, h.body, time.Now())
	require.ErrorIs(t, err, payments.ErrBadSignature)

	other := adapter.New(adapter.Config{WebhookSecret: "whsec_other", BaseURL: b.base + "/stripe"})
	_, err = other.ParseEvent(header(h.header), h.body, time.Now())
	require.ErrorIs(t, err, payments.ErrBadSignature)

	_, err = b.p.ParseEvent(header(h.header), h.body, time.Now().Add(6*time.Minute))
	require.ErrorIs(t, err, payments.ErrBadSignature, "a signature older than 5 minutes is refused")

	stale := fake.Sign(secret, h.body, time.Now().Add(-10*time.Minute))
	_, err = b.p.ParseEvent(func(string) string { return stale }, h.body, time.Now())
	require.ErrorIs(t, err, payments.ErrBadSignature)

	notJSON := []byte("not json")
	_, err = b.p.ParseEvent(func(string) string { return fake.Sign(secret, notJSON, time.Now()) }, notJSON, time.Now())
	require.ErrorIs(t, err, payments.ErrBadEvent)

	other2 := []byte(`{"id":"evt_1","object":"event","api_version":"2023-10-16","created":1,"type":"charge.refunded","data":{"object":{}}}`)
	ev, err := b.p.ParseEvent(func(string) string { return fake.Sign(secret, other2, time.Now()) }, other2, time.Now())
	require.NoError(t, err)
	require.Equal(t, payments.Ignored, ev.Type)
	require.Equal(t, "evt_1", ev.ID)
}

func TestProviderFailureIsErrProvider(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.fake.SetBehaviour(fake.Behaviour{FailNext: 1})
	_, err := b.p.CreateSession(context.Background(), request("ord-fail"))
	require.ErrorIs(t, err, payments.ErrProvider)
	require.Equal(t, errs.Upstream, errs.KindOf(err))
	// The next attempt, with the same idempotency key, goes through.
	s, err := b.p.CreateSession(context.Background(), request("ord-fail"))
	require.NoError(t, err)
	require.Equal(t, payments.Open, s.Status)

	_, err = adapter.New(adapter.Config{BaseURL: "http://127.0.0.1:1"}).GetSession(context.Background(), "cs_x")
	require.ErrorIs(t, err, payments.ErrProvider, "no answer is a provider error too")

	_, err = b.p.CreateSession(context.Background(), payments.SessionRequest{OrderID: "x", Amount: 100, Currency: "JPY", ReturnURL: "https://r"})
	require.True(t, errors.Is(err, errs.ErrInvalid), "a currency without cents is refused: %v", err)
}

func TestShortExpiryReachesTheFakeAsIs(t *testing.T) {
	t.Parallel()
	b := setup(t)
	r := request("ord-short")
	r.ExpiresAt = time.Now().Add(time.Second)
	s, err := b.p.CreateSession(context.Background(), r)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		got, err := b.p.GetSession(context.Background(), s.ID)
		return err == nil && got.Status == payments.Expired
	}, 5*time.Second, 50*time.Millisecond)
}

// A complete session with nothing to pay (payment_status no_payment_required) never counts as
// paid.
func TestNothingToPayIsNotPaid(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"cs_free","object":"checkout.session","status":"complete","payment_status":"no_payment_required",
			"amount_total":0,"currency":"usd","client_reference_id":"order-1"}`)
	}))
	t.Cleanup(srv.Close)
	p := adapter.New(adapter.Config{SecretKey: "sk_test_x", WebhookSecret: secret, BaseURL: srv.URL})
	s, err := p.GetSession(context.Background(), "cs_free")
	require.NoError(t, err)
	require.Equal(t, payments.Expired, s.Status)
}

// Without a webhook secret nothing verifies: an event signed with the empty key is refused.
func TestEmptyWebhookSecretNeverVerifies(t *testing.T) {
	t.Parallel()
	body := []byte(`{"id":"evt_1","object":"event","type":"checkout.session.completed","data":{"object":{"id":"cs_1","object":"checkout.session","status":"complete","payment_status":"paid"}}}`)
	now := time.Now()
	ts := strconv.FormatInt(now.Unix(), 10)
	mac := hmac.New(sha256.New, []byte(""))
	mac.Write([]byte(ts + "." + string(body)))
	header := func(string) string { return "t=" + ts + ",v1=" + hex.EncodeToString(mac.Sum(nil)) }
	p := adapter.New(adapter.Config{SecretKey: "sk_test_x", WebhookSecret: ""})
	_, err := p.ParseEvent(header, body, now)
	require.ErrorIs(t, err, payments.ErrBadSignature)
}
