// Package stripe implements the core payments.Provider port with Stripe Checkout Sessions,
// through stripe-go v76 (the API that fakes/stripe serves; its package doc is the wire format):
//
//	CreateSession  POST /v1/checkout/sessions (mode payment, one line item, client_reference_id =
//	               our order id, Idempotency-Key "checkout-session-<order id>")
//	GetSession     GET  /v1/checkout/sessions/{id}
//	ExpireSession  POST /v1/checkout/sessions/{id}/expire, or a read when it is no longer open
//	Refund         POST /v1/refunds by payment intent (Idempotency-Key = our reference)
//	ParseEvent     the Stripe-Signature of a webhook, checked with stripe-go's webhook package
//
// Amounts are sent in the currency's minor units, which for the two-decimal currencies the
// service deals in (USD, INR) is money.Amount itself; a zero- or three-decimal currency is
// refused rather than mispriced.
//
// Stripe refuses an expires_at less than 30 minutes or more than 24 hours ahead. Against the real
// API (BaseURL empty) a shorter expiry is pushed 31 minutes later, so that a retry of the same
// creation (same order, same ExpiresAt) sends the same parameters and meets the first session
// through the idempotency key; the service ends the session itself at the order's deadline
// (ExpireSession), so a session that would outlive it does no harm. Against any other base URL
// (the fake) ExpiresAt is sent as it is, so that tests can use short TTLs. More than 24 hours is
// cut to 24 hours everywhere.
//
// A retry of CreateSession must carry the same request (the order's recorded deadline as
// ExpiresAt, not one computed anew): Stripe answers a key reused with other parameters with an
// idempotency_error, which is ErrProvider here.
//
// stripe-go's own retries are off: a call fails at once and the caller, which records its intent
// first, tries again with the same idempotency key. Every answer that is not a success, and every
// call that got no answer, is payments.ErrProvider wrapped with the detail, except a 404 on a
// session, which is payments.ErrSessionNotFound.
package stripe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	stripe "github.com/stripe/stripe-go/v76"
	"github.com/stripe/stripe-go/v76/client"
	"github.com/stripe/stripe-go/v76/webhook"

	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/payments"
)

// Tolerance is how far a webhook's signature timestamp may be from now.
const Tolerance = webhook.DefaultTolerance

// DefaultTimeout bounds each call unless Config.HTTPClient brings its own client.
const DefaultTimeout = 30 * time.Second

// Stripe's bounds on expires_at.
const (
	minExpiry = 31 * time.Minute // 30 minutes and a margin for the clock and the trip
	maxExpiry = 24 * time.Hour
)

// Config configures a Provider.
type Config struct {
	// SecretKey is the API key (sk_…) sent as a bearer token.
	SecretKey string
	// WebhookSecret (whsec_…) verifies the events' Stripe-Signature.
	WebhookSecret string
	// BaseURL is the API root without /v1 (for the fakes, http://localhost:9090/stripe); empty
	// means the real Stripe API.
	BaseURL string
	// HTTPClient sends the calls; nil means a client with DefaultTimeout.
	HTTPClient *http.Client
}

// Provider is the Stripe payment provider. Use New.
type Provider struct {
	api           *client.API
	webhookSecret string
	real          bool
}

var _ payments.Provider = (*Provider)(nil)

// New returns a provider speaking to Stripe (or to the API at cfg.BaseURL).
func New(cfg Config) *Provider {
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: DefaultTimeout}
	}
	bc := &stripe.BackendConfig{HTTPClient: hc, MaxNetworkRetries: stripe.Int64(0),
		LeveledLogger: &stripe.LeveledLogger{Level: stripe.LevelNull}}
	if cfg.BaseURL != "" {
		bc.URL = stripe.String(strings.TrimRight(cfg.BaseURL, "/"))
	}
	backend := stripe.GetBackendWithConfig(stripe.APIBackend, bc)
	api := client.New(cfg.SecretKey, &stripe.Backends{API: backend, Connect: backend, Uploads: backend})
	return &Provider{api: api, webhookSecret: cfg.WebhookSecret, real: cfg.BaseURL == ""}
}

// Name implements payments.Provider.
func (p *Provider) Name() string { return "stripe" }

// nonDecimal are the currencies whose minor unit is not a hundredth (Stripe's zero- and
// three-decimal currencies).
var nonDecimal = map[string]bool{"BIF": true, "CLP": true, "DJF": true, "GNF": true, "JPY": true, "KMF": true,
	"KRW": true, "MGA": true, "PYG": true, "RWF": true, "UGX": true, "VND": true, "VUV": true, "XAF": true,
	"XOF": true, "XPF": true, "BHD": true, "JOD": true, "KWD": true, "OMR": true, "TND": true}

// CreateSession implements payments.Provider.
func (p *Provider) CreateSession(ctx context.Context, r payments.SessionRequest) (payments.Session, error) {
	currency := strings.ToUpper(r.Currency)
	switch {
	case r.OrderID == "" || r.Amount <= 0 || len(currency) != 3 || r.ReturnURL == "":
		return payments.Session{}, errs.Invalidf("a payment session needs an order id, a positive amount, a currency and a return URL")
	case nonDecimal[currency]:
		return payments.Session{}, errs.Invalidf("currency %s has no cents; the Stripe adapter takes two-decimal currencies only", currency)
	}
	name := r.Description
	if name == "" {
		name = "Order " + r.OrderID
	}
	params := &stripe.CheckoutSessionParams{
		Mode: stripe.String(string(stripe.CheckoutSessionModePayment)),
		LineItems: []*stripe.CheckoutSessionLineItemParams{{
			PriceData: &stripe.CheckoutSessionLineItemPriceDataParams{
				Currency:    stripe.String(strings.ToLower(currency)),
				UnitAmount:  stripe.Int64(int64(r.Amount)),
				ProductData: &stripe.CheckoutSessionLineItemPriceDataProductDataParams{Name: stripe.String(name)},
			},
			Quantity: stripe.Int64(1),
		}},
		ClientReferenceID: stripe.String(r.OrderID),
		SuccessURL:        stripe.String(r.ReturnURL),
		CancelURL:         stripe.String(r.ReturnURL),
		Metadata:          map[string]string{"order_id": r.OrderID, "customer_ref": r.Customer.Ref},
		PaymentIntentData: &stripe.CheckoutSessionPaymentIntentDataParams{Metadata: map[string]string{"order_id": r.OrderID}},
	}
	if r.Customer.Email != "" {
		params.CustomerEmail = stripe.String(r.Customer.Email)
	}
	if !r.ExpiresAt.IsZero() {
		params.ExpiresAt = stripe.Int64(p.expiresAt(r.ExpiresAt, time.Now()).Unix())
	}
	params.Context = ctx
	params.IdempotencyKey = stripe.String("checkout-session-" + r.OrderID)
	s, err := p.api.CheckoutSessions.New(params)
	if err != nil {
		return payments.Session{}, p.fail("create the session of order "+r.OrderID, err, false)
	}
	return toSession(s), nil
}

// expiresAt brings t within what Stripe takes (see the package doc).
func (p *Provider) expiresAt(t, now time.Time) time.Time {
	if p.real && t.Sub(now) < minExpiry {
		t = t.Add(minExpiry)
	}
	if t.Sub(now) > maxExpiry {
		t = now.Add(maxExpiry)
	}
	return t
}

// GetSession implements payments.Provider.
func (p *Provider) GetSession(ctx context.Context, sessionID string) (payments.Session, error) {
	params := &stripe.CheckoutSessionParams{}
	params.Context = ctx
	s, err := p.api.CheckoutSessions.Get(sessionID, params)
	if err != nil {
		return payments.Session{}, p.fail("read session "+sessionID, err, true)
	}
	return toSession(s), nil
}

// ExpireSession implements payments.Provider.
func (p *Provider) ExpireSession(ctx context.Context, sessionID string) (payments.Session, error) {
	params := &stripe.CheckoutSessionExpireParams{}
	params.Context = ctx
	s, err := p.api.CheckoutSessions.Expire(sessionID, params)
	var se *stripe.Error
	if errors.As(err, &se) && se.HTTPStatusCode == http.StatusBadRequest && se.Type == stripe.ErrorTypeInvalidRequest {
		// Refused: most likely no longer open (paid or expired meanwhile). What it is now decides.
		now, gerr := p.GetSession(ctx, sessionID)
		if gerr != nil {
			return payments.Session{}, gerr
		}
		if now.Status != payments.Open {
			return now, nil
		}
	}
	if err != nil {
		return payments.Session{}, p.fail("expire session "+sessionID, err, true)
	}
	return toSession(s), nil
}

// Refund implements payments.Provider.
func (p *Provider) Refund(ctx context.Context, r payments.RefundRequest) (payments.Refund, error) {
	if r.PaymentID == "" || r.Reference == "" {
		return payments.Refund{}, errs.Invalidf("a Stripe refund needs the payment intent id and a reference")
	}
	params := &stripe.RefundParams{PaymentIntent: stripe.String(r.PaymentID),
		Metadata: map[string]string{"reference": r.Reference, "session_id": r.SessionID}}
	if r.Amount > 0 {
		params.Amount = stripe.Int64(int64(r.Amount))
	}
	if r.Reason != "" {
		params.Metadata["reason"] = r.Reason
	}
	params.Context = ctx
	params.IdempotencyKey = stripe.String(r.Reference)
	ref, err := p.api.Refunds.New(params)
	if err != nil {
		return payments.Refund{}, p.fail("refund payment "+r.PaymentID, err, false)
	}
	return payments.Refund{ID: ref.ID, Status: string(ref.Status)}, nil
}

// ParseEvent implements payments.Provider. The signature is checked by stripe-go (HMAC-SHA256,
// constant-time) and its timestamp against now, within Tolerance either way. An event of another
// API version than stripe-go's is read all the same: only fields stable across versions are used.
func (p *Provider) ParseEvent(header func(name string) string, body []byte, now time.Time) (payments.Event, error) {
	sig := header("Stripe-Signature")
	if p.webhookSecret == "" {
		// Anyone can sign with an empty key: without a secret nothing verifies.
		return payments.Event{}, fmt.Errorf("stripe event: no webhook secret is configured: %w", payments.ErrBadSignature)
	}
	if err := webhook.ValidatePayloadIgnoringTolerance(body, sig, p.webhookSecret); err != nil {
		return payments.Event{}, fmt.Errorf("stripe event: %w: %w", payments.ErrBadSignature, err)
	}
	t, ok := signedAt(sig)
	if d := now.Sub(t); !ok || d > Tolerance || d < -Tolerance {
		return payments.Event{}, fmt.Errorf("stripe event: signed at %s, now %s: %w", t.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339), payments.ErrBadSignature)
	}
	ev, err := webhook.ConstructEventWithOptions(body, sig, p.webhookSecret,
		webhook.ConstructEventOptions{IgnoreTolerance: true, IgnoreAPIVersionMismatch: true})
	if err != nil || ev.ID == "" || ev.Type == "" {
		return payments.Event{}, fmt.Errorf("stripe event: %w: %v", payments.ErrBadEvent, err)
	}
	out := payments.Event{ID: ev.ID, Type: payments.Ignored, At: time.Unix(ev.Created, 0).UTC()}
	if !strings.HasPrefix(string(ev.Type), "checkout.session.") {
		return out, nil
	}
	if ev.Data == nil {
		return payments.Event{}, fmt.Errorf("stripe event %s: no data: %w", ev.ID, payments.ErrBadEvent)
	}
	var s stripe.CheckoutSession
	if err := json.Unmarshal(ev.Data.Raw, &s); err != nil || s.ID == "" {
		return payments.Event{}, fmt.Errorf("stripe event %s: session: %w: %v", ev.ID, payments.ErrBadEvent, err)
	}
	out.SessionID, out.OrderID = s.ID, s.ClientReferenceID
	if s.PaymentIntent != nil {
		out.PaymentID = s.PaymentIntent.ID
	}
	switch ev.Type {
	case "checkout.session.completed":
		if s.PaymentStatus == stripe.CheckoutSessionPaymentStatusPaid {
			out.Type = payments.SessionPaid
		}
	case "checkout.session.async_payment_succeeded":
		out.Type = payments.SessionPaid
	case "checkout.session.expired":
		out.Type = payments.SessionExpired
	}
	return out, nil
}

// signedAt reads t= of a Stripe-Signature header.
func signedAt(header string) (time.Time, bool) {
	for part := range strings.SplitSeq(header, ",") {
		if v, found := strings.CutPrefix(strings.TrimSpace(part), "t="); found {
			n, err := strconv.ParseInt(v, 10, 64)
			return time.Unix(n, 0), err == nil
		}
	}
	return time.Time{}, false
}

// toSession converts a Checkout Session into the port's Session. A complete session whose
// payment is still pending (an asynchronous method) is Open: it can still be paid, and not
// expired.
func toSession(s *stripe.CheckoutSession) payments.Session {
	out := payments.Session{ID: s.ID, OrderID: s.ClientReferenceID, PayerToken: s.URL,
		Amount: money.Amount(s.AmountTotal), Currency: strings.ToUpper(string(s.Currency)), Status: payments.Open}
	switch {
	case s.Status == stripe.CheckoutSessionStatusExpired:
		out.Status = payments.Expired
	case s.Status == stripe.CheckoutSessionStatusComplete && s.PaymentStatus == stripe.CheckoutSessionPaymentStatusPaid:
		out.Status = payments.Paid
	case s.Status == stripe.CheckoutSessionStatusComplete && s.PaymentStatus == stripe.CheckoutSessionPaymentStatusNoPaymentRequired:
		// Complete with nothing paid (a 100 % discount, a zero amount): it never counts as paid,
		// and can no longer be paid.
		out.Status = payments.Expired
	}
	if s.PaymentIntent != nil {
		out.PaymentID = s.PaymentIntent.ID
	}
	return out
}

// fail turns a stripe-go error into the port's: a 404 on a call naming a session (session) is
// ErrSessionNotFound, anything else ErrProvider with what Stripe said.
func (p *Provider) fail(what string, err error, session bool) error {
	var se *stripe.Error
	if !errors.As(err, &se) {
		return fmt.Errorf("stripe: %s: no answer: %w: %w", what, payments.ErrProvider, err)
	}
	if se.HTTPStatusCode == http.StatusNotFound && session {
		return fmt.Errorf("stripe: %s: %w", what, payments.ErrSessionNotFound)
	}
	return fmt.Errorf("stripe: %s: answered %d %s %s: %s: %w", what, se.HTTPStatusCode, se.Type, se.Code, se.Msg, payments.ErrProvider)
}
