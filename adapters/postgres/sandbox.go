package postgres

import (
	"context"
	"fmt"

	"github.com/rewardsco/rewards/adapters/payments/sandbox"
	"github.com/rewardsco/rewards/adapters/postgres/db"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/payments"
)

// SandboxPayments keeps the sessions of the test environment's built-in payment sandbox
// (sandbox.Store).
type SandboxPayments struct{ q *db.Queries }

var _ sandbox.Store = (*SandboxPayments)(nil)

// NewSandboxPayments returns the sandbox's session store on d.
func NewSandboxPayments(d *DB) *SandboxPayments { return &SandboxPayments{q: db.New(outages{d.pool})} }

func toSandboxSession(r db.SandboxPaymentSession) sandbox.Session {
	return sandbox.Session{ID: r.ID, OrderID: r.OrderID, Amount: money.Amount(r.Amount), Currency: r.Currency,
		Description: r.Description, ReturnURL: r.ReturnUrl, Status: payments.Status(r.Status), PaymentID: r.PaymentID,
		Refunded: r.Refunded, ExpiresAt: r.ExpiresAt, CreatedAt: r.CreatedAt}
}

func sandboxResult(r db.SandboxPaymentSession, err error, what string) (sandbox.Session, error) {
	if isNoRows(err) {
		return sandbox.Session{}, sandbox.ErrNotFound
	}
	if err != nil {
		return sandbox.Session{}, fmt.Errorf("%s sandbox session: %w", what, err)
	}
	return toSandboxSession(r), nil
}

// Create implements sandbox.Store.
func (s *SandboxPayments) Create(ctx context.Context, in sandbox.Session) (sandbox.Session, error) {
	r, err := s.q.SandboxCreateSession(ctx, db.SandboxCreateSessionParams{ID: in.ID, OrderID: in.OrderID, Amount: int64(in.Amount),
		Currency: in.Currency, Description: in.Description, ReturnUrl: in.ReturnURL, ExpiresAt: in.ExpiresAt})
	return sandboxResult(r, err, "create")
}

// Get implements sandbox.Store.
func (s *SandboxPayments) Get(ctx context.Context, id string) (sandbox.Session, error) {
	r, err := s.q.SandboxGetSession(ctx, id)
	return sandboxResult(r, err, "get")
}

// Pay implements sandbox.Store.
func (s *SandboxPayments) Pay(ctx context.Context, id, paymentID string) (sandbox.Session, error) {
	r, err := s.q.SandboxPay(ctx, db.SandboxPayParams{ID: id, PaymentID: paymentID})
	return sandboxResult(r, err, "pay")
}

// Expire implements sandbox.Store.
func (s *SandboxPayments) Expire(ctx context.Context, id string) (sandbox.Session, error) {
	r, err := s.q.SandboxExpire(ctx, id)
	return sandboxResult(r, err, "expire")
}

// Refund implements sandbox.Store.
func (s *SandboxPayments) Refund(ctx context.Context, id string) (sandbox.Session, error) {
	r, err := s.q.SandboxRefund(ctx, id)
	return sandboxResult(r, err, "refund")
}
