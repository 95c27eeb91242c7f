// Package payments is the port to the payment providers that collect a partner's CASH orders:
// a hosted payment session per order, its state, its early end, refunds, and the signed events
// the provider sends when a session is paid or expires. The adapters are adapters/payments/stripe
// (USD, stripe-go Checkout Sessions) and adapters/payments/cashfree (INR, Cashfree PG); the fakes
// are fakes/stripe and fakes/cashfree.
package payments

import (
	"context"
	"time"

	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/money"
)

// Status is where a payment session stands.
type Status string

// The states of a session.
const (
	// Open: the payer can still pay.
	Open Status = "OPEN"
	// Paid: the payment is complete (captured); the order may be fulfilled.
	Paid Status = "PAID"
	// Expired: the session ended unpaid (expired, cancelled or terminated); it can no longer be paid.
	Expired Status = "EXPIRED"
)

// SessionRequest asks for a payment session for one order.
type SessionRequest struct {
	// OrderID is our order id: the session's reference at the provider and the idempotency key
	// of its creation, so that creating a session for one order twice gives one session.
	OrderID string
	// Amount is what the payer pays, in Currency (INR or USD).
	Amount   money.Amount
	Currency string
	// Description names what is bought ("Amazon gift card 500 × 2").
	Description string
	// ReturnURL is where the payer goes after paying or cancelling.
	ReturnURL string
	// ExpiresAt is when the session stops taking payments.
	ExpiresAt time.Time
	// Customer identifies the payer for the provider (ref is required; email and phone optional).
	Customer Customer
}

// Customer is the partner's user paying for an order.
type Customer struct {
	Ref, Email, Phone string
}

// Session is a payment session as the provider reports it.
type Session struct {
	// ID is the provider's id of the session (Stripe cs_…, Cashfree the order id we gave it):
	// what GetSession, ExpireSession and Refund take.
	ID string
	// OrderID is our order id the session was created for.
	OrderID string
	// PayerToken is what the partner hands its user: Stripe's approval URL (the session's
	// url), Cashfree's payment_session_id.
	PayerToken string
	Status     Status
	// PaymentID is the provider's id of the completed payment (Stripe's payment intent,
	// Cashfree's cf_payment_id) once Status is Paid; Refund needs it on Stripe.
	PaymentID string
	Amount    money.Amount
	Currency  string
}

// RefundRequest gives a paid session's money back.
type RefundRequest struct {
	// SessionID and PaymentID are the session's (PaymentID from Session.PaymentID).
	SessionID, PaymentID string
	Amount               money.Amount
	// Reference is our idempotency key of the refund (one per order), so that refunding one
	// order twice refunds it once.
	Reference string
	Reason    string
}

// Refund is a refund as the provider reports it.
type Refund struct {
	ID string
	// Status is the provider's word for it (succeeded, pending, SUCCESS, …), for the record.
	Status string
}

// EventType is what a provider event says happened.
type EventType string

// The events the service acts on; everything else is Ignored (acknowledged, recorded, no effect).
const (
	// SessionPaid: the payer completed the payment (Stripe checkout.session.completed with
	// payment_status paid, or async_payment_succeeded; Cashfree PAYMENT_SUCCESS_WEBHOOK).
	SessionPaid EventType = "SESSION_PAID"
	// SessionExpired: the session ended unpaid (Stripe checkout.session.expired).
	SessionExpired EventType = "SESSION_EXPIRED"
	// Ignored: any other event (a failed attempt the payer may retry, a refund notice, …).
	Ignored EventType = "IGNORED"
)

// Event is a verified provider webhook.
type Event struct {
	// ID is the provider's event id, or for a provider without one a stable id derived from
	// the event (the same delivery twice gives the same ID): events are recorded once by it.
	ID        string
	Type      EventType
	SessionID string
	OrderID   string
	PaymentID string
	// At is when the provider says the event happened.
	At time.Time
}

// Provider is a payment provider.
type Provider interface {
	// Name is "stripe" or "cashfree".
	Name() string
	// CreateSession opens a payment session for an order (idempotent by OrderID).
	CreateSession(ctx context.Context, r SessionRequest) (Session, error)
	// GetSession reads a session; ErrSessionNotFound when the provider has none.
	GetSession(ctx context.Context, sessionID string) (Session, error)
	// ExpireSession ends an open session so that it can no longer be paid and returns it as it
	// is then: a session already paid stays Paid (the caller must refund or fulfil it); one
	// already expired is returned as it is.
	ExpireSession(ctx context.Context, sessionID string) (Session, error)
	// Refund gives a paid session's money back (idempotent by Reference).
	Refund(ctx context.Context, r RefundRequest) (Refund, error)
	// ParseEvent verifies a webhook's signature (header reads a request header by its
	// canonical name) and decodes it; a bad or stale signature is ErrBadSignature, a body it
	// cannot read ErrBadEvent.
	ParseEvent(header func(name string) string, body []byte, now time.Time) (Event, error)
}

// The port's errors.
var (
	ErrSessionNotFound = errs.New(errs.NotFound, "PAYMENT_SESSION_NOT_FOUND", "the payment provider has no such session")
	ErrBadSignature    = errs.New(errs.Unauthorized, "BAD_SIGNATURE", "the webhook signature is missing, invalid or too old")
	ErrBadEvent        = errs.New(errs.Invalid, "BAD_EVENT", "the webhook body is not an event this service can read")
	// ErrProvider is an answer the provider gave that is not a success (a 4xx or 5xx, or an
	// unreadable body); wrap it with the details.
	ErrProvider = errs.New(errs.Upstream, "PAYMENT_PROVIDER_ERROR", "the payment provider did not accept the request")
)
