// Package cashfree implements the core payments.Provider port over Cashfree PG's JSON API,
// version 2023-08-01 (the one fakes/cashfree serves; its package doc is the wire format):
//
//	CreateSession  POST  {base}/pg/orders (order_id = our order id; a 409 order_already_exists
//	               is a retry: the order is read instead)
//	GetSession     GET   {base}/pg/orders/{order_id}, and /payments once PAID for the payment id
//	ExpireSession  PATCH {base}/pg/orders/{order_id} {order_status: TERMINATED}, or a read when
//	               Cashfree refuses because it is no longer ACTIVE
//	Refund         POST  {base}/pg/orders/{order_id}/refunds (refund_id = our reference)
//	ParseEvent     x-webhook-signature = base64 HMAC-SHA256(client secret, x-webhook-timestamp +
//	               body), compared in constant time, the timestamp within 5 minutes of now
//
// with headers x-client-id, x-client-secret and x-api-version. A session's ID is Cashfree's
// order id, which is our order id; its PayerToken is payment_session_id. Amounts travel as
// decimal JSON numbers converted exactly to and from money.Amount.
//
// Every answer that is not a success, and every call that got no answer, is payments.ErrProvider
// wrapped with the detail, except a 404 on an order, which is payments.ErrSessionNotFound.
package cashfree

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/rewardsco/rewards/adapters/jsoncall"
	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/payments"
)

// APIVersion is the x-api-version sent.
const APIVersion = "2023-08-01"

// DefaultBaseURL is Cashfree's production API.
const DefaultBaseURL = "https://api.cashfree.com"

// DefaultTimeout bounds each call unless Config.HTTPClient brings its own client.
const DefaultTimeout = 30 * time.Second

// Tolerance is how far a webhook's timestamp may be from now.
const Tolerance = 5 * time.Minute

// maxBody bounds what is read of an answer.
const maxBody = 1 << 20

// Config configures a Provider.
type Config struct {
	ClientID, ClientSecret string
	// BaseURL is the API root without /pg (for the fakes, http://localhost:9090/cashfree; the
	// sandbox, https://sandbox.cashfree.com); empty means DefaultBaseURL.
	BaseURL string
	// HTTPClient sends the calls; nil means a client with DefaultTimeout.
	HTTPClient *http.Client
}

// Provider is the Cashfree payment provider. Use New.
type Provider struct {
	cfg  Config
	base string
	http *http.Client
}

var _ payments.Provider = (*Provider)(nil)

// New returns a provider speaking to Cashfree (or to the API at cfg.BaseURL).
func New(cfg Config) *Provider {
	p := &Provider{cfg: cfg, base: strings.TrimRight(cfg.BaseURL, "/"), http: cfg.HTTPClient}
	if p.base == "" {
		p.base = DefaultBaseURL
	}
	if p.http == nil {
		p.http = &http.Client{Timeout: DefaultTimeout}
	}
	return p
}

// Name implements payments.Provider.
func (p *Provider) Name() string { return "cashfree" }

// The wire format.
type (
	wireCustomer struct {
		CustomerID    string `json:"customer_id"`
		CustomerPhone string `json:"customer_phone"`
		CustomerEmail string `json:"customer_email,omitempty"`
	}
	wireMeta struct {
		ReturnURL string `json:"return_url,omitempty"`
	}
	wireOrderRequest struct {
		OrderID         string       `json:"order_id"`
		OrderAmount     json.Number  `json:"order_amount"`
		OrderCurrency   string       `json:"order_currency"`
		CustomerDetails wireCustomer `json:"customer_details"`
		OrderMeta       wireMeta     `json:"order_meta"`
		OrderExpiryTime string       `json:"order_expiry_time,omitempty"`
		OrderNote       string       `json:"order_note,omitempty"`
	}
	wireOrder struct {
		OrderID          string      `json:"order_id"`
		OrderAmount      json.Number `json:"order_amount"`
		OrderCurrency    string      `json:"order_currency"`
		OrderStatus      string      `json:"order_status"`
		PaymentSessionID string      `json:"payment_session_id"`
	}
	wirePayment struct {
		CFPaymentID   json.Number `json:"cf_payment_id"`
		PaymentStatus string      `json:"payment_status"`
	}
	wireRefund struct {
		CFRefundID   json.Number `json:"cf_refund_id"`
		RefundID     string      `json:"refund_id"`
		RefundStatus string      `json:"refund_status"`
	}
	wireEvent struct {
		Type      string `json:"type"`
		EventTime string `json:"event_time"`
		Data      struct {
			Order struct {
				OrderID string `json:"order_id"`
			} `json:"order"`
			Payment struct {
				CFPaymentID   json.Number `json:"cf_payment_id"`
				PaymentStatus string      `json:"payment_status"`
			} `json:"payment"`
		} `json:"data"`
	}
)

var (
	orderIDRE   = regexp.MustCompile(`^[A-Za-z0-9_-]{3,45}$`)
	customerBad = regexp.MustCompile(`[^A-Za-z0-9_-]+`)
)

// customerID turns a partner's user reference into what Cashfree takes: 3 to 50 of A–Z a–z 0–9
// _ -, anything else replaced by _, short ones padded. Cashfree uses it for the payer's saved
// methods only, so a collision between two references costs nothing.
func customerID(ref string) string {
	id := customerBad.ReplaceAllString(ref, "_")
	if len(id) > 50 {
		id = id[:50]
	}
	for len(id) < 3 {
		id += "_"
	}
	return id
}

// CreateSession implements payments.Provider.
func (p *Provider) CreateSession(ctx context.Context, r payments.SessionRequest) (payments.Session, error) {
	switch {
	case !orderIDRE.MatchString(r.OrderID):
		return payments.Session{}, errs.Invalidf("a Cashfree order id is 3 to 45 of A-Z a-z 0-9 _ -, got %q", r.OrderID)
	case r.Amount < 100:
		return payments.Session{}, errs.Invalidf("Cashfree takes orders of at least 1.00, got %s", r.Amount)
	case r.Customer.Phone == "":
		return payments.Session{}, errs.Invalidf("Cashfree needs the customer's phone number to take a payment")
	case r.Customer.Ref == "":
		return payments.Session{}, errs.Invalidf("a payment needs the customer's reference")
	}
	req := wireOrderRequest{OrderID: r.OrderID, OrderAmount: json.Number(r.Amount.String()),
		OrderCurrency: strings.ToUpper(r.Currency), OrderNote: r.Description,
		CustomerDetails: wireCustomer{CustomerID: customerID(r.Customer.Ref), CustomerPhone: r.Customer.Phone, CustomerEmail: r.Customer.Email},
		OrderMeta:       wireMeta{ReturnURL: r.ReturnURL}}
	if !r.ExpiresAt.IsZero() {
		req.OrderExpiryTime = r.ExpiresAt.Format(time.RFC3339)
	}
	var o wireOrder
	err := p.do(ctx, http.MethodPost, "/pg/orders", req, &o)
	if jsoncall.StatusOf(err) == http.StatusConflict {
		// A retry: the order exists. It must be the same order.
		s, gerr := p.GetSession(ctx, r.OrderID)
		if gerr != nil {
			return payments.Session{}, gerr
		}
		if s.Amount != r.Amount {
			return payments.Session{}, fmt.Errorf("cashfree: order %s exists with amount %s, not %s: %w", r.OrderID, s.Amount, r.Amount, payments.ErrProvider)
		}
		return s, nil
	}
	if err != nil {
		return payments.Session{}, err
	}
	return toSession(o)
}

// GetSession implements payments.Provider.
func (p *Provider) GetSession(ctx context.Context, sessionID string) (payments.Session, error) {
	var o wireOrder
	if err := p.do(ctx, http.MethodGet, "/pg/orders/"+url.PathEscape(sessionID), nil, &o); err != nil {
		return payments.Session{}, notFound(sessionID, err)
	}
	s, err := toSession(o)
	if err != nil || s.Status != payments.Paid {
		return s, err
	}
	var pays []wirePayment
	if err := p.do(ctx, http.MethodGet, "/pg/orders/"+url.PathEscape(sessionID)+"/payments", nil, &pays); err != nil {
		return payments.Session{}, err
	}
	for _, pm := range pays {
		if pm.PaymentStatus == "SUCCESS" {
			s.PaymentID = pm.CFPaymentID.String()
		}
	}
	return s, nil
}

// ExpireSession implements payments.Provider.
func (p *Provider) ExpireSession(ctx context.Context, sessionID string) (payments.Session, error) {
	var o wireOrder
	err := p.do(ctx, http.MethodPatch, "/pg/orders/"+url.PathEscape(sessionID), map[string]string{"order_status": "TERMINATED"}, &o)
	if jsoncall.StatusOf(err) == http.StatusBadRequest {
		// Refused: most likely no longer ACTIVE (paid or expired meanwhile). What it is now decides.
		s, gerr := p.GetSession(ctx, sessionID)
		if gerr != nil {
			return payments.Session{}, gerr
		}
		if s.Status != payments.Open {
			return s, nil
		}
	}
	if err != nil {
		return payments.Session{}, notFound(sessionID, err)
	}
	return toSession(o)
}

// Refund implements payments.Provider. A refund_id Cashfree already has (a 409) is looked up
// among the order's refunds.
func (p *Provider) Refund(ctx context.Context, r payments.RefundRequest) (payments.Refund, error) {
	if r.SessionID == "" || r.Reference == "" || r.Amount <= 0 {
		return payments.Refund{}, errs.Invalidf("a Cashfree refund needs the order, a reference and a positive amount")
	}
	path := "/pg/orders/" + url.PathEscape(r.SessionID) + "/refunds"
	req := map[string]any{"refund_amount": json.Number(r.Amount.String()), "refund_id": r.Reference, "refund_note": r.Reason}
	var ref wireRefund
	err := p.do(ctx, http.MethodPost, path, req, &ref)
	if jsoncall.StatusOf(err) == http.StatusConflict {
		var all []wireRefund
		if lerr := p.do(ctx, http.MethodGet, path, nil, &all); lerr != nil {
			return payments.Refund{}, lerr
		}
		for _, x := range all {
			if x.RefundID == r.Reference {
				return payments.Refund{ID: x.CFRefundID.String(), Status: x.RefundStatus}, nil
			}
		}
	}
	if err != nil {
		return payments.Refund{}, err
	}
	return payments.Refund{ID: ref.CFRefundID.String(), Status: ref.RefundStatus}, nil
}

// ParseEvent implements payments.Provider.
func (p *Provider) ParseEvent(header func(name string) string, body []byte, now time.Time) (payments.Event, error) {
	ts, sig := header("X-Webhook-Timestamp"), header("X-Webhook-Signature")
	if p.cfg.ClientSecret == "" {
		// Anyone can sign with an empty key: without a secret nothing verifies.
		return payments.Event{}, fmt.Errorf("cashfree event: no client secret is configured: %w", payments.ErrBadSignature)
	}
	if ts == "" || sig == "" {
		return payments.Event{}, fmt.Errorf("cashfree event: no timestamp or signature: %w", payments.ErrBadSignature)
	}
	got, err := base64.StdEncoding.DecodeString(sig)
	if err != nil {
		return payments.Event{}, fmt.Errorf("cashfree event: signature is not base64: %w", payments.ErrBadSignature)
	}
	mac := hmac.New(sha256.New, []byte(p.cfg.ClientSecret))
	mac.Write([]byte(ts))
	mac.Write(body)
	if !hmac.Equal(got, mac.Sum(nil)) {
		return payments.Event{}, fmt.Errorf("cashfree event: signature does not match: %w", payments.ErrBadSignature)
	}
	ms, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return payments.Event{}, fmt.Errorf("cashfree event: timestamp %q: %w", ts, payments.ErrBadSignature)
	}
	if d := now.Sub(time.UnixMilli(ms)); d > Tolerance || d < -Tolerance {
		return payments.Event{}, fmt.Errorf("cashfree event: timestamp %s is %s from now: %w", ts, d, payments.ErrBadSignature)
	}
	var w wireEvent
	if err := json.Unmarshal(body, &w); err != nil || w.Type == "" {
		return payments.Event{}, fmt.Errorf("cashfree event: %w: %v", payments.ErrBadEvent, err)
	}
	orderID, paymentID := w.Data.Order.OrderID, w.Data.Payment.CFPaymentID.String()
	ev := payments.Event{Type: payments.Ignored, SessionID: orderID, OrderID: orderID, At: time.UnixMilli(ms).UTC()}
	if t, err := time.Parse(time.RFC3339, w.EventTime); err == nil {
		ev.At = t.UTC()
	}
	ev.ID = w.Type + ":" + orderID
	if paymentID != "" {
		ev.ID = w.Type + ":" + paymentID
	}
	switch w.Type {
	case "PAYMENT_SUCCESS_WEBHOOK":
		if orderID == "" || paymentID == "" {
			return payments.Event{}, fmt.Errorf("cashfree event %s: no order or payment id: %w", w.Type, payments.ErrBadEvent)
		}
		ev.Type, ev.PaymentID = payments.SessionPaid, paymentID
	case "PAYMENT_USER_DROPPED_WEBHOOK":
		if orderID == "" {
			return payments.Event{}, fmt.Errorf("cashfree event %s: no order id: %w", w.Type, payments.ErrBadEvent)
		}
		ev.Type = payments.SessionExpired
	}
	return ev, nil
}

func toSession(o wireOrder) (payments.Session, error) {
	s := payments.Session{ID: o.OrderID, OrderID: o.OrderID, PayerToken: o.PaymentSessionID, Currency: strings.ToUpper(o.OrderCurrency)}
	a, err := jsoncall.Amount(o.OrderAmount)
	if err != nil {
		return payments.Session{}, fmt.Errorf("cashfree: order %s: order_amount: %w: %w", o.OrderID, payments.ErrProvider, err)
	}
	s.Amount = a
	switch o.OrderStatus {
	case "ACTIVE":
		s.Status = payments.Open
	case "PAID":
		s.Status = payments.Paid
	case "EXPIRED", "TERMINATED", "TERMINATION_REQUESTED":
		s.Status = payments.Expired
	default:
		return payments.Session{}, fmt.Errorf("cashfree: order %s has unknown status %q: %w", o.OrderID, o.OrderStatus, payments.ErrProvider)
	}
	return s, nil
}

func notFound(id string, err error) error {
	if jsoncall.StatusOf(err) == http.StatusNotFound {
		return fmt.Errorf("cashfree: order %s: %w", id, payments.ErrSessionNotFound)
	}
	return err
}

// do makes one call and decodes a 2xx answer into out.
func (p *Provider) do(ctx context.Context, method, path string, in, out any) error {
	header := http.Header{"X-Client-Id": {p.cfg.ClientID}, "X-Client-Secret": {p.cfg.ClientSecret}, "X-Api-Version": {APIVersion}}
	a, err := jsoncall.Do(ctx, p.http, method, p.base+path, header, in, maxBody)
	var none *jsoncall.NoAnswer
	if errors.As(err, &none) {
		return fmt.Errorf("cashfree: %s %s: %s: %w: %w", method, path, none.Detail, payments.ErrProvider, none.Err)
	}
	if err != nil {
		return fmt.Errorf("cashfree: %w", err)
	}
	if !a.OK() {
		// Every answer that is not a success is a payments.ErrProvider.
		return a.Failure("cashfree", method, path, payments.ErrProvider)
	}
	if err := json.Unmarshal(a.Body, out); err != nil {
		return fmt.Errorf("cashfree: %s %s: undecodable answer %d: %w: %w", method, path, a.Status, payments.ErrProvider, err)
	}
	return nil
}
