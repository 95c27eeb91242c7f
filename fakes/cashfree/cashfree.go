// Package cashfree is a fake of the part of Cashfree PG (API version 2023-08-01) that
// adapters/payments/cashfree speaks: orders, their payments and refunds, a sandbox payment page,
// and signed payment webhooks. It is mounted under /cashfree, so that the adapter's base URL is
// <fakes base>/cashfree (paths /pg/...). It keeps everything in memory.
//
// Authentication is the headers x-client-id and x-client-secret, with x-api-version required.
// Without credentials configured (WithClientID, WithClientSecret; FAKE_CASHFREE_CLIENT_ID,
// FAKE_CASHFREE_CLIENT_SECRET in fakes/cmd/fakes) any non-empty ones are accepted; with them,
// anything else is 401. Bodies are JSON; amounts are JSON numbers with at most two decimals;
// times are RFC 3339 in India time (+05:30) as Cashfree writes them. Errors are {message, code,
// type}.
//
//	POST  /cashfree/pg/orders                       {order_id, order_amount (≥ 1), order_currency
//	                                                (default INR), customer_details{customer_id
//	                                                (3–50 of A–Z a–z 0–9 _ -), customer_phone
//	                                                (required, at least 10 digits),
//	                                                customer_email?, customer_name?}, order_meta?
//	                                                {return_url?, notify_url?}, order_expiry_time?
//	                                                (RFC 3339, any future time; default 30 days),
//	                                                order_note?} → Order, ACTIVE; an order_id seen
//	                                                before → 409 order_already_exists
//	GET   /cashfree/pg/orders/{order_id}            Order; 404 order_not_found
//	PATCH /cashfree/pg/orders/{order_id}            {order_status: "TERMINATED"}: an ACTIVE order
//	                                                → TERMINATED; any other → 400
//	                                                order_not_active
//	GET   /cashfree/pg/orders/{order_id}/payments   [Payment], oldest first
//	POST  /cashfree/pg/orders/{order_id}/refunds    {refund_amount, refund_id (3–40 of A–Z a–z 0–9
//	                                                _ -), refund_note?} → Refund, SUCCESS; only a
//	                                                PAID order (else 400 refund_not_allowed), at
//	                                                most what is left (else 400
//	                                                refund_amount_exceeded); the same refund_id and
//	                                                amount again → 200 and the same Refund, another
//	                                                amount → 409 refund_already_exists
//	GET   /cashfree/pg/orders/{order_id}/refunds    [Refund], oldest first
//
//	Order   {cf_order_id, order_id, entity: order, order_amount, order_currency, order_status:
//	        ACTIVE|PAID|EXPIRED|TERMINATED, payment_session_id, order_expiry_time, order_note,
//	        created_at, customer_details, order_meta, order_splits: [], order_tags: null}
//	Payment {cf_payment_id, order_id, entity: payment, payment_amount, payment_currency,
//	        payment_status: SUCCESS|USER_DROPPED, payment_message, payment_time,
//	        payment_completion_time, payment_group: upi, is_captured, bank_reference,
//	        payment_method: {upi: {channel, upi_id}}}
//	Refund  {cf_payment_id, cf_refund_id, refund_id, order_id, entity: refund, refund_amount,
//	        refund_currency, refund_note, refund_status: SUCCESS, refund_type:
//	        MERCHANT_INITIATED, created_at, processed_at}
//
// An ACTIVE order whose order_expiry_time has passed is EXPIRED from then on (Cashfree sends no
// webhook for it).
//
// The sandbox page acts for the payer, addressed by the order's payment_session_id:
//
//	GET  /cashfree/pg/sandbox/{paymentSessionId}   a small HTML page with Pay and Cancel buttons
//	POST /cashfree/pg/sandbox/{paymentSessionId}   form action=pay: the order becomes PAID with a
//	                                               SUCCESS payment, PAYMENT_SUCCESS_WEBHOOK is
//	                                               sent, 303 to return_url ({order_id} in it
//	                                               replaced); action=cancel: a USER_DROPPED
//	                                               payment, the order TERMINATED,
//	                                               PAYMENT_USER_DROPPED_WEBHOOK sent, 303 to
//	                                               return_url. Paying an order that is not ACTIVE
//	                                               is 409, unless force=1 pays an EXPIRED or
//	                                               TERMINATED one: a late capture the bank made
//	                                               anyway.
//
// Webhooks are POSTed to <webhook target>/webhooks/cashfree with body {data: {order: {order_id,
// order_amount, order_currency, order_tags}, payment: {cf_payment_id, payment_status,
// payment_amount, payment_currency, payment_message, payment_time, payment_group},
// customer_details: {customer_id, customer_name, customer_email, customer_phone}}, event_time,
// type} and headers x-webhook-timestamp (Unix milliseconds), x-webhook-signature =
// base64(HMAC-SHA256(secret, timestamp + body)), x-webhook-version: 2023-08-01, signed afresh at
// every attempt. The secret is WithClientSecret's, or without one the x-client-secret of the
// request that created the order (as Cashfree signs with the merchant's secret). A non-2xx answer
// or a transport error is tried again, 5 tries 1 s apart unless WithWebhookRetries says
// otherwise. The target is WithWebhookTarget (FAKE_WEBHOOK_TARGET) or SetWebhookTarget.
//
//	POST /cashfree/behaviour                {failNext?, failStatus?, status?, stallMs?,
//	                                        dropWebhooks?, holdWebhooks?}; {} resets
//	GET  /cashfree/events                   every event, oldest first: {id, type, body,
//	                                        createdAt, delivered, dropped, held, attempts,
//	                                        lastStatus, lastError}
//	POST /cashfree/events/{id}/resend       send one event again (a duplicate); answers once done
//	POST /cashfree/webhooks/release         {"reverse": bool}: send the held events one after
//	                                        the other, newest first when reverse
//
// Behaviour applies to the /cashfree/pg/orders endpoints only, as fakes/stripe's does.
package cashfree

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math/big"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rewardsco/rewards/fakes/internal/behave"
	"github.com/rewardsco/rewards/fakes/internal/outbox"
)

// APIVersion is the version of the API and of the webhooks the fake speaks.
const APIVersion = "2023-08-01"

// The headers of a webhook.
const (
	TimestampHeader = "x-webhook-timestamp"
	SignatureHeader = "x-webhook-signature"
	VersionHeader   = "x-webhook-version"
)

// Order statuses.
const (
	Active     = "ACTIVE"
	PaidStatus = "PAID"
	Expired    = "EXPIRED"
	Terminated = "TERMINATED"
)

// Webhook types the fake sends.
const (
	PaymentSuccess     = "PAYMENT_SUCCESS_WEBHOOK"
	PaymentUserDropped = "PAYMENT_USER_DROPPED_WEBHOOK"
)

// ist is the zone Cashfree writes its times in.
var ist = time.FixedZone("IST", 5*3600+1800)

// Decimal is an amount in hundredths that is a JSON number with at most two decimals.
type Decimal int64

// MarshalJSON writes the number with two decimals.
func (d Decimal) MarshalJSON() ([]byte, error) {
	return []byte(fmt.Sprintf("%d.%02d", int64(d)/100, int64(d)%100)), nil
}

var decimalRE = regexp.MustCompile(`^[0-9]{1,13}(\.[0-9]{1,2})?$`)

// UnmarshalJSON reads a non-negative JSON number with at most two decimals, exactly.
func (d *Decimal) UnmarshalJSON(b []byte) error {
	s := string(b)
	if s == "null" {
		return nil
	}
	if !decimalRE.MatchString(s) {
		return fmt.Errorf("%s is not a non-negative number with at most two decimals", s)
	}
	whole, frac, _ := strings.Cut(s, ".")
	frac += strings.Repeat("0", 2-len(frac))
	n, err := strconv.ParseInt(whole+frac, 10, 64)
	*d = Decimal(n)
	return err
}

// Customer is an order's customer_details.
type Customer struct {
	CustomerID    string  `json:"customer_id"`
	CustomerPhone string  `json:"customer_phone"`
	CustomerEmail *string `json:"customer_email"`
	CustomerName  *string `json:"customer_name"`
}

// Meta is an order's order_meta.
type Meta struct {
	ReturnURL      *string `json:"return_url"`
	NotifyURL      *string `json:"notify_url"`
	PaymentMethods *string `json:"payment_methods"`
}

// OrderRequest is the body of POST /cashfree/pg/orders.
type OrderRequest struct {
	OrderID         string   `json:"order_id"`
	OrderAmount     Decimal  `json:"order_amount"`
	OrderCurrency   string   `json:"order_currency"`
	CustomerDetails Customer `json:"customer_details"`
	OrderMeta       Meta     `json:"order_meta"`
	OrderExpiryTime string   `json:"order_expiry_time"`
	OrderNote       *string  `json:"order_note"`
}

// Order is an order as Cashfree answers it.
type Order struct {
	CFOrderID        string   `json:"cf_order_id"`
	OrderID          string   `json:"order_id"`
	Entity           string   `json:"entity"`
	OrderAmount      Decimal  `json:"order_amount"`
	OrderCurrency    string   `json:"order_currency"`
	OrderStatus      string   `json:"order_status"`
	PaymentSessionID string   `json:"payment_session_id"`
	OrderExpiryTime  string   `json:"order_expiry_time"`
	OrderNote        *string  `json:"order_note"`
	CreatedAt        string   `json:"created_at"`
	CustomerDetails  Customer `json:"customer_details"`
	OrderMeta        Meta     `json:"order_meta"`
	OrderSplits      []any    `json:"order_splits"`
	OrderTags        any      `json:"order_tags"`
}

// Payment is a payment attempt of an order.
type Payment struct {
	CFPaymentID           string            `json:"cf_payment_id"`
	OrderID               string            `json:"order_id"`
	Entity                string            `json:"entity"`
	PaymentAmount         Decimal           `json:"payment_amount"`
	PaymentCurrency       string            `json:"payment_currency"`
	PaymentStatus         string            `json:"payment_status"`
	PaymentMessage        string            `json:"payment_message"`
	PaymentTime           string            `json:"payment_time"`
	PaymentCompletionTime string            `json:"payment_completion_time"`
	PaymentGroup          string            `json:"payment_group"`
	IsCaptured            bool              `json:"is_captured"`
	BankReference         string            `json:"bank_reference"`
	PaymentMethod         map[string]any    `json:"payment_method"`
	ErrorDetails          map[string]string `json:"error_details"`
}

// RefundRequest is the body of POST /cashfree/pg/orders/{order_id}/refunds.
type RefundRequest struct {
	RefundAmount Decimal `json:"refund_amount"`
	RefundID     string  `json:"refund_id"`
	RefundNote   string  `json:"refund_note"`
}

// Refund is a refund as Cashfree answers it.
type Refund struct {
	CFPaymentID    string  `json:"cf_payment_id"`
	CFRefundID     string  `json:"cf_refund_id"`
	RefundID       string  `json:"refund_id"`
	OrderID        string  `json:"order_id"`
	Entity         string  `json:"entity"`
	RefundAmount   Decimal `json:"refund_amount"`
	RefundCurrency string  `json:"refund_currency"`
	RefundNote     string  `json:"refund_note"`
	RefundStatus   string  `json:"refund_status"`
	RefundType     string  `json:"refund_type"`
	CreatedAt      string  `json:"created_at"`
	ProcessedAt    string  `json:"processed_at"`
}

// APIError is the body of every error answer.
type APIError struct {
	Message string `json:"message"`
	Code    string `json:"code"`
	Type    string `json:"type"`
}

// Event is an event as the fake recorded it (GET /cashfree/events).
type Event = outbox.Event

// Behaviour is how the fake answers; the zero value answers normally. See fakes/stripe.
type Behaviour struct {
	FailNext     int  `json:"failNext"`
	FailStatus   int  `json:"failStatus"`
	Status       int  `json:"status"`
	StallMs      int  `json:"stallMs"`
	DropWebhooks bool `json:"dropWebhooks"`
	HoldWebhooks bool `json:"holdWebhooks"`
}

// Option configures a Provider.
type Option func(*Provider)

// WithClientID makes the fake accept only this x-client-id; empty accepts any.
func WithClientID(id string) Option { return func(p *Provider) { p.clientID = id } }

// WithClientSecret makes the fake accept only this x-client-secret and sign the webhooks with
// it; empty accepts any and signs with the secret the order was created with.
func WithClientSecret(secret string) Option { return func(p *Provider) { p.clientSecret = secret } }

// WithWebhookTarget sets the service's base URL the webhooks go to (<target>/webhooks/cashfree).
func WithWebhookTarget(url string) Option { return func(p *Provider) { p.target = url } }

// WithWebhookRetries sets how many times a webhook is tried and how long apart (default 5, 1 s).
func WithWebhookRetries(tries int, backoff time.Duration) Option {
	return func(p *Provider) { p.tries, p.backoff = tries, backoff }
}

// WithClock replaces time.Now, so that a test can move past order_expiry_time without waiting.
func WithClock(now func() time.Time) Option { return func(p *Provider) { p.now = now } }

type order struct {
	Order
	expiry   time.Time
	secret   string
	payments []*Payment
	refunds  []*Refund
	refunded Decimal
}

// Provider is the fake. Use New; Close stops deliveries in progress.
type Provider struct {
	clientID     string
	clientSecret string
	target       string
	tries        int
	backoff      time.Duration
	now          func() time.Time
	out          *outbox.Outbox

	mu        sync.Mutex
	orders    map[string]*order
	sessions  map[string]*order
	seq       int64
	behaviour Behaviour
}

// New returns a fake with no orders.
func New(opts ...Option) *Provider {
	p := &Provider{tries: outbox.DefaultTries, backoff: outbox.DefaultBackoff, now: time.Now,
		orders: map[string]*order{}, sessions: map[string]*order{}, seq: 2149460580}
	for _, o := range opts {
		o(p)
	}
	p.out = outbox.New("/webhooks/cashfree", nil, p.tries, p.backoff)
	p.out.SetTarget(p.target)
	return p
}

// Close stops the deliveries in progress.
func (p *Provider) Close() { p.out.Close() }

// SetWebhookTarget sets the service's base URL the webhooks go to; "" stops sending.
func (p *Provider) SetWebhookTarget(url string) { p.out.SetTarget(url) }

// SetBehaviour replaces the fake's behaviour, as POST /cashfree/behaviour does.
func (p *Provider) SetBehaviour(b Behaviour) {
	p.mu.Lock()
	p.behaviour = b
	p.mu.Unlock()
	p.out.SetMode(b.DropWebhooks, b.HoldWebhooks)
}

// Events returns every webhook recorded, oldest first, as GET /cashfree/events does.
func (p *Provider) Events() []Event { return p.out.Events() }

// Sign returns x-webhook-signature for body sent at timestamp (Unix milliseconds, as text).
func Sign(secret, timestamp string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(timestamp))
	mac.Write(body)
	return base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// Register adds the fake's routes to mux.
func (p *Provider) Register(mux *http.ServeMux) {
	mux.HandleFunc("POST /cashfree/pg/orders", p.api(p.createOrder))
	mux.HandleFunc("GET /cashfree/pg/orders/{id}", p.api(p.getOrder))
	mux.HandleFunc("PATCH /cashfree/pg/orders/{id}", p.api(p.terminate))
	mux.HandleFunc("GET /cashfree/pg/orders/{id}/payments", p.api(p.listPayments))
	mux.HandleFunc("POST /cashfree/pg/orders/{id}/refunds", p.api(p.createRefund))
	mux.HandleFunc("GET /cashfree/pg/orders/{id}/refunds", p.api(p.listRefunds))
	mux.HandleFunc("GET /cashfree/pg/sandbox/{session}", p.page)
	mux.HandleFunc("POST /cashfree/pg/sandbox/{session}", p.act)
	mux.HandleFunc("POST /cashfree/behaviour", p.setBehaviour)
	p.out.Handlers(mux, "/cashfree", func() {})
}

type answer struct {
	status int
	body   any
}

func fail(status int, code, typ, format string, args ...any) answer {
	return answer{status, APIError{Message: fmt.Sprintf(format, args...), Code: code, Type: typ}}
}

func invalid(code, format string, args ...any) answer {
	return fail(http.StatusBadRequest, code, "invalid_request_error", format, args...)
}

// api wraps an API handler with the behaviour and the credential check; handlers run under p.mu.
func (p *Provider) api(h func(*http.Request) answer) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		b := &p.behaviour
		forced, stall := behave.Decide(&b.FailNext, b.FailStatus, b.Status, b.StallMs)
		var a answer
		id, secret := r.Header.Get("x-client-id"), r.Header.Get("x-client-secret")
		switch {
		case forced != 0:
			typ := "api_error"
			if forced < 500 {
				typ = "invalid_request_error"
			}
			a = fail(forced, "request_failed", typ, "the fake was told to answer %d", forced)
		case id == "" || secret == "" || (p.clientID != "" && id != p.clientID) || (p.clientSecret != "" && secret != p.clientSecret):
			a = fail(http.StatusUnauthorized, "request_failed", "authentication_error", "authentication Failed")
		case r.Header.Get("x-api-version") == "":
			a = invalid("request_failed", "x-api-version is missing in the request")
		default:
			a = h(r)
		}
		p.mu.Unlock()
		if !behave.Hold(r.Context(), stall) {
			return
		}
		writeJSON(w, a.status, a.body)
	}
}

var (
	orderIDRE    = regexp.MustCompile(`^[A-Za-z0-9_-]{3,45}$`)
	customerIDRE = regexp.MustCompile(`^[A-Za-z0-9_-]{3,50}$`)
	refundIDRE   = regexp.MustCompile(`^[A-Za-z0-9_-]{3,40}$`)
)

func (p *Provider) createOrder(r *http.Request) answer {
	var req OrderRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&req); err != nil {
		return invalid("request_invalid", "the body is not a valid order: %v", err)
	}
	now := p.now()
	digits := 0
	for _, c := range req.CustomerDetails.CustomerPhone {
		if c >= '0' && c <= '9' {
			digits++
		}
	}
	switch {
	case req.OrderID == "":
		return invalid("order_id_missing", "order_id is missing in the request")
	case !orderIDRE.MatchString(req.OrderID):
		return invalid("order_id_invalid", "order_id should be 3 to 45 characters of alphanumerics, _ and -")
	case req.OrderAmount < 100:
		return invalid("order_amount_invalid", "order_amount should be at least 1.00")
	case req.CustomerDetails.CustomerID == "":
		return invalid("customer_details.customer_id_missing", "customer_details.customer_id is missing in the request")
	case !customerIDRE.MatchString(req.CustomerDetails.CustomerID):
		return invalid("customer_details.customer_id_invalid", "customer_details.customer_id should be 3 to 50 characters of alphanumerics, _ and -")
	case req.CustomerDetails.CustomerPhone == "":
		return invalid("customer_details.customer_phone_missing", "customer_details.customer_phone is missing in the request")
	case digits < 10:
		return invalid("customer_details.customer_phone_invalid", "customer_details.customer_phone should have at least 10 digits")
	}
	if req.OrderCurrency == "" {
		req.OrderCurrency = "INR"
	}
	expiry := now.Add(30 * 24 * time.Hour)
	if req.OrderExpiryTime != "" {
		t, err := time.Parse(time.RFC3339, req.OrderExpiryTime)
		if err != nil || !t.After(now) {
			return invalid("order_expiry_time_invalid", "order_expiry_time should be an RFC 3339 time in the future")
		}
		expiry = t
	}
	if p.orders[req.OrderID] != nil {
		return fail(http.StatusConflict, "order_already_exists", "invalid_request_error", "order with same id is already present")
	}
	p.seq++
	o := &order{expiry: expiry, secret: r.Header.Get("x-client-secret"), Order: Order{
		CFOrderID: strconv.FormatInt(p.seq, 10), OrderID: req.OrderID, Entity: "order", OrderAmount: req.OrderAmount,
		OrderCurrency: strings.ToUpper(req.OrderCurrency), OrderStatus: Active,
		PaymentSessionID: "session_" + randomString(48), OrderExpiryTime: expiry.In(ist).Format(time.RFC3339),
		OrderNote: req.OrderNote, CreatedAt: now.In(ist).Format(time.RFC3339), CustomerDetails: req.CustomerDetails,
		OrderMeta: req.OrderMeta, OrderSplits: []any{}}}
	p.orders[o.OrderID] = o
	p.sessions[o.PaymentSessionID] = o
	return answer{http.StatusOK, o.Order}
}

// find returns the order named in the path, brought up to date, or the 404 to answer.
func (p *Provider) find(r *http.Request) (*order, answer, bool) {
	o := p.orders[r.PathValue("id")]
	if o == nil {
		return nil, fail(http.StatusNotFound, "order_not_found", "invalid_request_error", "Order not found for this merchant"), false
	}
	p.settle(o)
	return o, answer{}, true
}

// settle expires an ACTIVE order past its expiry. The caller holds p.mu.
func (p *Provider) settle(o *order) {
	if o.OrderStatus == Active && !p.now().Before(o.expiry) {
		o.OrderStatus = Expired
	}
}

func (p *Provider) getOrder(r *http.Request) answer {
	o, a, ok := p.find(r)
	if !ok {
		return a
	}
	return answer{http.StatusOK, o.Order}
}

func (p *Provider) terminate(r *http.Request) answer {
	o, a, ok := p.find(r)
	if !ok {
		return a
	}
	var req struct {
		OrderStatus string `json:"order_status"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&req); err != nil || req.OrderStatus != Terminated {
		return invalid("order_status_invalid", `the body must be {"order_status": "TERMINATED"}`)
	}
	if o.OrderStatus != Active {
		return invalid("order_not_active", "order is %s and can no longer be terminated", o.OrderStatus)
	}
	o.OrderStatus = Terminated
	return answer{http.StatusOK, o.Order}
}

func (p *Provider) listPayments(r *http.Request) answer {
	o, a, ok := p.find(r)
	if !ok {
		return a
	}
	out := make([]Payment, 0, len(o.payments))
	for _, pm := range o.payments {
		out = append(out, *pm)
	}
	return answer{http.StatusOK, out}
}

func (p *Provider) createRefund(r *http.Request) answer {
	o, a, ok := p.find(r)
	if !ok {
		return a
	}
	var req RefundRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&req); err != nil {
		return invalid("request_invalid", "the body is not a valid refund: %v", err)
	}
	switch {
	case !refundIDRE.MatchString(req.RefundID):
		return invalid("refund_id_invalid", "refund_id should be 3 to 40 characters of alphanumerics, _ and -")
	case req.RefundAmount <= 0:
		return invalid("refund_amount_invalid", "refund_amount should be positive")
	}
	for _, ref := range o.refunds {
		if ref.RefundID == req.RefundID {
			if ref.RefundAmount != req.RefundAmount {
				return fail(http.StatusConflict, "refund_already_exists", "invalid_request_error", "refund with refund_id %s already exists with another amount", req.RefundID)
			}
			return answer{http.StatusOK, *ref}
		}
	}
	if o.OrderStatus != PaidStatus {
		return invalid("refund_not_allowed", "refund can be initiated only on a PAID order; this one is %s", o.OrderStatus)
	}
	if left := o.OrderAmount - o.refunded; req.RefundAmount > left {
		return invalid("refund_amount_exceeded", "refund_amount %s is more than what is left to refund, %s", text(req.RefundAmount), text(left))
	}
	var paid *Payment
	for _, pm := range o.payments {
		if pm.PaymentStatus == "SUCCESS" {
			paid = pm
		}
	}
	now := p.now().In(ist).Format(time.RFC3339)
	p.seq++
	ref := &Refund{CFPaymentID: paid.CFPaymentID, CFRefundID: strconv.FormatInt(p.seq, 10), RefundID: req.RefundID,
		OrderID: o.OrderID, Entity: "refund", RefundAmount: req.RefundAmount, RefundCurrency: o.OrderCurrency,
		RefundNote: req.RefundNote, RefundStatus: "SUCCESS", RefundType: "MERCHANT_INITIATED", CreatedAt: now, ProcessedAt: now}
	o.refunds = append(o.refunds, ref)
	o.refunded += req.RefundAmount
	return answer{http.StatusOK, *ref}
}

func (p *Provider) listRefunds(r *http.Request) answer {
	o, a, ok := p.find(r)
	if !ok {
		return a
	}
	out := make([]Refund, 0, len(o.refunds))
	for _, ref := range o.refunds {
		out = append(out, *ref)
	}
	return answer{http.StatusOK, out}
}

// addPayment records a payment attempt and sends its webhook. The caller holds p.mu.
func (p *Provider) addPayment(o *order, status, typ, message string) {
	now := p.now().In(ist).Format(time.RFC3339)
	p.seq++
	pm := &Payment{CFPaymentID: strconv.FormatInt(p.seq, 10), OrderID: o.OrderID, Entity: "payment",
		PaymentAmount: o.OrderAmount, PaymentCurrency: o.OrderCurrency, PaymentStatus: status, PaymentMessage: message,
		PaymentTime: now, PaymentCompletionTime: now, PaymentGroup: "upi", IsCaptured: status == "SUCCESS",
		BankReference: randomDigits(12), PaymentMethod: map[string]any{"upi": map[string]any{"channel": "collect", "upi_id": "payer@fakeupi"}}}
	o.payments = append(o.payments, pm)
	body, err := json.Marshal(map[string]any{
		"data": map[string]any{
			"order": map[string]any{"order_id": o.OrderID, "order_amount": o.OrderAmount, "order_currency": o.OrderCurrency, "order_tags": nil},
			"payment": map[string]any{"cf_payment_id": pm.CFPaymentID, "payment_status": status, "payment_amount": pm.PaymentAmount,
				"payment_currency": pm.PaymentCurrency, "payment_message": message, "payment_time": now, "bank_reference": pm.BankReference,
				"payment_group": pm.PaymentGroup, "payment_method": pm.PaymentMethod},
			"customer_details": o.CustomerDetails,
		},
		"event_time": now, "type": typ})
	if err != nil {
		panic(err)
	}
	secret := o.secret
	if p.clientSecret != "" {
		secret = p.clientSecret
	}
	p.out.AddSigned(typ+":"+pm.CFPaymentID, typ, body, func(body []byte, at time.Time) http.Header {
		ts := strconv.FormatInt(at.UnixMilli(), 10)
		h := http.Header{}
		h.Set(TimestampHeader, ts)
		h.Set(SignatureHeader, Sign(secret, ts, body))
		h.Set(VersionHeader, APIVersion)
		return h
	})
}

var pageTemplate = template.Must(template.New("page").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>Fake Cashfree Checkout</title>
<style>body{font-family:sans-serif;max-width:28rem;margin:3rem auto}button{font-size:1.1rem;padding:.5rem 1.5rem;margin-right:1rem}</style></head>
<body><h1>Fake Cashfree Checkout</h1>
<p>Order <code>{{.OrderID}}</code>: <strong>{{.Status}}</strong></p>
<p>Amount: <strong>{{.Amount}} {{.Currency}}</strong></p>
{{if .Active}}<form method="post"><button name="action" value="pay">Pay</button><button name="action" value="cancel">Cancel</button></form>
{{else}}<p>This order can no longer be paid.</p>{{end}}
</body></html>`))

func (p *Provider) page(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	o := p.sessions[r.PathValue("session")]
	if o == nil {
		p.mu.Unlock()
		http.Error(w, "no such payment session", http.StatusNotFound)
		return
	}
	p.settle(o)
	data := map[string]any{"OrderID": o.OrderID, "Status": o.OrderStatus, "Amount": text(o.OrderAmount),
		"Currency": o.OrderCurrency, "Active": o.OrderStatus == Active}
	p.mu.Unlock()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = pageTemplate.Execute(w, data)
}

// act is the payer paying or giving up on the sandbox page.
func (p *Provider) act(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "the form must be form-encoded", http.StatusBadRequest)
		return
	}
	p.mu.Lock()
	o := p.sessions[r.PathValue("session")]
	if o == nil {
		p.mu.Unlock()
		http.Error(w, "no such payment session", http.StatusNotFound)
		return
	}
	p.settle(o)
	force := r.PostForm.Get("force") == "1" || r.PostForm.Get("force") == "true"
	switch action := r.PostForm.Get("action"); {
	case action == "pay" && (o.OrderStatus == Active || (force && (o.OrderStatus == Expired || o.OrderStatus == Terminated))):
		o.OrderStatus = PaidStatus
		p.addPayment(o, "SUCCESS", PaymentSuccess, "Transaction successful")
	case action == "pay":
		p.mu.Unlock()
		http.Error(w, fmt.Sprintf("this order is %s and cannot be paid (force=1 pays an expired or terminated one)", o.OrderStatus), http.StatusConflict)
		return
	case action == "cancel" && o.OrderStatus == Active:
		o.OrderStatus = Terminated
		p.addPayment(o, "USER_DROPPED", PaymentUserDropped, "The payer left the payment page")
	case action == "cancel":
		p.mu.Unlock()
		http.Error(w, fmt.Sprintf("this order is %s and cannot be cancelled", o.OrderStatus), http.StatusConflict)
		return
	default:
		p.mu.Unlock()
		http.Error(w, "action must be pay or cancel", http.StatusBadRequest)
		return
	}
	to := ""
	if o.OrderMeta.ReturnURL != nil {
		to = strings.ReplaceAll(*o.OrderMeta.ReturnURL, "{order_id}", o.OrderID)
	}
	status := o.OrderStatus
	p.mu.Unlock()
	if to == "" {
		_, _ = fmt.Fprintf(w, "order %s is %s\n", o.OrderID, status)
		return
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
}

func (p *Provider) setBehaviour(w http.ResponseWriter, r *http.Request) {
	var b Behaviour
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&b); err != nil || b.FailNext < 0 || b.StallMs < 0 ||
		(b.Status != 0 && (b.Status < 100 || b.Status > 599)) || (b.FailStatus != 0 && (b.FailStatus < 100 || b.FailStatus > 599)) {
		writeJSON(w, http.StatusBadRequest, APIError{Code: "request_invalid", Type: "invalid_request_error",
			Message: "body must be {failNext?, failStatus?, status?, stallMs?, dropWebhooks?, holdWebhooks?} with valid numbers"})
		return
	}
	p.SetBehaviour(b)
	writeJSON(w, http.StatusOK, b)
}

func text(d Decimal) string {
	b, _ := d.MarshalJSON()
	return string(b)
}

const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

func randomString(n int) string { return random(alnum, n) }

func randomDigits(n int) string { return random("0123456789", n) }

func random(alphabet string, n int) string {
	b := make([]byte, n)
	max := big.NewInt(int64(len(alphabet)))
	for i := range b {
		k, err := rand.Int(rand.Reader, max)
		if err != nil {
			panic(err)
		}
		b[i] = alphabet[k.Int64()]
	}
	return string(b)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
