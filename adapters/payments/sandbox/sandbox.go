// Package sandbox is the built-in payment provider of the test environment: an adapter of the
// core payments.Provider port in which no money moves. A CASH order of the test environment gets
// a session whose payer token is the address of a page of this service,
// {REWARDS_PUBLIC_URL}/sandbox/payments/{id}, with Pay and Cancel (POST the same address with
// action=pay or action=cancel to act without a browser). The page's action confirms the order
// through the same reconciliation as a provider's webhook would.
//
// Sessions are kept in PostgreSQL (the Store), so every instance, and a restarted one, knows
// them. The sandbox sends no webhooks: ParseEvent never verifies.
package sandbox

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"strings"
	"time"

	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/payments"
)

// Name is the provider's name, as orders record it.
const Name = "sandbox"

// PagePath is where the payment pages are served: PagePath + "{id}".
const PagePath = "/sandbox/payments/"

// Session is a sandbox session as the Store keeps it.
type Session struct {
	ID, OrderID string
	Amount      money.Amount
	Currency    string
	Description string
	ReturnURL   string
	Status      payments.Status
	PaymentID   string
	Refunded    bool
	ExpiresAt   time.Time
	CreatedAt   time.Time
}

// ErrNotFound is what a Store answers for an unknown session (or one not in the state a change
// needs).
var ErrNotFound = errors.New("sandbox: no such session")

// Store keeps the sandbox's sessions.
type Store interface {
	// Create opens s, or returns the session of s.OrderID when it has one.
	Create(ctx context.Context, s Session) (Session, error)
	Get(ctx context.Context, id string) (Session, error)
	// Pay marks an open, unexpired session paid; ErrNotFound otherwise.
	Pay(ctx context.Context, id, paymentID string) (Session, error)
	// Expire ends an open session unpaid; ErrNotFound when it is not open.
	Expire(ctx context.Context, id string) (Session, error)
	// Refund marks a paid session refunded; ErrNotFound when it is not paid.
	Refund(ctx context.Context, id string) (Session, error)
}

// Provider is the sandbox payment provider. Use New.
type Provider struct {
	store     Store
	publicURL string
}

var _ payments.Provider = (*Provider)(nil)

// New returns the sandbox over store; publicURL is the service's own address (REWARDS_PUBLIC_URL),
// where the payment pages are.
func New(store Store, publicURL string) *Provider {
	return &Provider{store: store, publicURL: strings.TrimRight(publicURL, "/")}
}

// Name implements payments.Provider.
func (p *Provider) Name() string { return Name }

func (p *Provider) toSession(s Session) payments.Session {
	return payments.Session{ID: s.ID, OrderID: s.OrderID, PayerToken: p.publicURL + PagePath + s.ID, Status: s.Status,
		PaymentID: s.PaymentID, Amount: s.Amount, Currency: s.Currency}
}

// CreateSession implements payments.Provider, idempotent by order.
func (p *Provider) CreateSession(ctx context.Context, r payments.SessionRequest) (payments.Session, error) {
	if r.OrderID == "" || r.Amount <= 0 {
		return payments.Session{}, fmt.Errorf("sandbox: a session needs an order and a positive amount: %w", payments.ErrProvider)
	}
	s, err := p.store.Create(ctx, Session{ID: "sps_" + rand.Text(), OrderID: r.OrderID, Amount: r.Amount, Currency: r.Currency,
		Description: r.Description, ReturnURL: r.ReturnURL, Status: payments.Open, ExpiresAt: r.ExpiresAt})
	if err != nil {
		return payments.Session{}, err
	}
	return p.toSession(s), nil
}

// GetSession implements payments.Provider.
func (p *Provider) GetSession(ctx context.Context, id string) (payments.Session, error) {
	s, err := p.store.Get(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return payments.Session{}, payments.ErrSessionNotFound
	}
	if err != nil {
		return payments.Session{}, err
	}
	return p.toSession(s), nil
}

// ExpireSession implements payments.Provider: an open session ends unpaid; any other is
// returned as it is.
func (p *Provider) ExpireSession(ctx context.Context, id string) (payments.Session, error) {
	if _, err := p.store.Expire(ctx, id); err != nil && !errors.Is(err, ErrNotFound) {
		return payments.Session{}, err
	}
	return p.GetSession(ctx, id)
}

// Refund implements payments.Provider (idempotent: a session is refunded once).
func (p *Provider) Refund(ctx context.Context, r payments.RefundRequest) (payments.Refund, error) {
	s, err := p.store.Get(ctx, r.SessionID)
	if errors.Is(err, ErrNotFound) {
		return payments.Refund{}, payments.ErrSessionNotFound
	}
	if err != nil {
		return payments.Refund{}, err
	}
	if s.Status != payments.Paid {
		return payments.Refund{}, fmt.Errorf("sandbox: session %s is %s, not paid: %w", s.ID, s.Status, payments.ErrProvider)
	}
	if !s.Refunded {
		if _, err := p.store.Refund(ctx, s.ID); err != nil && !errors.Is(err, ErrNotFound) {
			return payments.Refund{}, err
		}
	}
	return payments.Refund{ID: "sbx_" + r.Reference, Status: "succeeded"}, nil
}

// ParseEvent implements payments.Provider: the sandbox sends no webhooks, so nothing verifies.
func (p *Provider) ParseEvent(func(string) string, []byte, time.Time) (payments.Event, error) {
	return payments.Event{}, payments.ErrBadSignature
}

// Settled is told the order of a session the payer paid or cancelled on the page, so that the
// order is reconciled at once (as a provider's webhook would make happen).
type Settled func(ctx context.Context, orderID string) error

// Handler serves the payment pages under PagePath: GET shows the session with Pay and Cancel;
// POST with action=pay or action=cancel acts for the payer and answers the page as it is then.
func (p *Provider) Handler(settled Settled) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := strings.TrimPrefix(r.URL.Path, PagePath)
		s, err := p.store.Get(r.Context(), id)
		switch {
		case errors.Is(err, ErrNotFound) || strings.Contains(id, "/"):
			http.Error(w, "no such sandbox payment", http.StatusNotFound)
			return
		case err != nil:
			http.Error(w, "internal error", http.StatusInternalServerError)
			return
		}
		note := ""
		if r.Method == http.MethodPost {
			var changed Session
			switch r.FormValue("action") {
			case "pay":
				changed, err = p.store.Pay(r.Context(), id, "sbx_pay_"+rand.Text())
			case "cancel":
				changed, err = p.store.Expire(r.Context(), id)
			default:
				http.Error(w, "action must be pay or cancel", http.StatusBadRequest)
				return
			}
			switch {
			case errors.Is(err, ErrNotFound):
				w.WriteHeader(http.StatusConflict)
				note = "This session can no longer change: it is " + string(s.Status) + " (or past its expiry)."
			case err != nil:
				http.Error(w, "internal error", http.StatusInternalServerError)
				return
			default:
				s = changed
				if settled != nil {
					// The order follows at once; if this fails, its read or the job at expiry
					// reconciles it anyway.
					_ = settled(r.Context(), s.OrderID)
				}
			}
		} else if r.Method != http.MethodGet {
			w.Header().Set("Allow", "GET, POST")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		_ = page.Execute(w, map[string]any{"S": s, "Note": note, "Open": s.Status == payments.Open && time.Now().Before(s.ExpiresAt)})
	})
}

var page = template.Must(template.New("page").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>Sandbox payment</title></head>
<body style="font-family: sans-serif; max-width: 32em; margin: 3em auto">
<h1>Sandbox payment</h1>
<p><strong>Test environment: no money moves.</strong></p>
<p>{{.S.Description}}</p>
<p>Amount: {{.S.Amount}} {{.S.Currency}}</p>
<p>Status: <strong id="status">{{.S.Status}}</strong>{{if .S.Refunded}} (refunded){{end}}</p>
{{if .Note}}<p>{{.Note}}</p>{{end}}
{{if .Open}}<form method="post"><button name="action" value="pay">Pay</button> <button name="action" value="cancel">Cancel</button></form>{{end}}
{{if .S.ReturnURL}}<p><a href="{{.S.ReturnURL}}">Back to the shop</a></p>{{end}}
</body></html>
`))
