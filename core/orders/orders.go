package orders

import (
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/players"
	"github.com/rewardsco/rewards/core/studio"
)

// Status is where an order stands.
type Status string

// The order states, shared by store purchases and partner orders.
const (
	// Initiated: funds taken, nothing sent to the provider.
	Initiated Status = "INITIATED"
	// Processing: sent to the provider, no final answer yet.
	Processing Status = "PROCESSING"
	// PendingPayment: a partner's CASH order waiting for its payment.
	PendingPayment Status = "PENDING_PAYMENT"
	// Success: delivered (codes issued, or a good placed).
	Success Status = "SUCCESS"
	// Failed: not delivered, and the funds given back in the same transaction.
	Failed Status = "FAILED"
	// Timeout: the provider did not answer finally within the wait; it is asked again until it
	// does, past the deadline less and less often, for at most GiveUpAfter past the deadline,
	// and then waits for an operator.
	Timeout Status = "TIMEOUT"
	// Refunded: a partner's order whose payment never completed or was given back.
	Refunded Status = "REFUNDED"
)

// transitions are the only moves an order can make.
var transitions = map[Status][]Status{
	Initiated:      {Processing, Success, Failed},
	Processing:     {Success, Failed, Timeout},
	Timeout:        {Success, Failed},
	PendingPayment: {Initiated, Refunded, Failed},
}

// CanMove reports whether an order may go from one status to another.
func CanMove(from, to Status) bool {
	for _, s := range transitions[from] {
		if s == to {
			return true
		}
	}
	return false
}

// Final reports whether no transition leaves s.
func (s Status) Final() bool { return len(transitions[s]) == 0 }

// Statuses lists every status.
var Statuses = []Status{Initiated, Processing, PendingPayment, Success, Failed, Timeout, Refunded}

// Code is one delivered code, opened.
type Code struct {
	Code              string
	Pin               string
	ProviderVoucherID string
	Value             money.Amount
	Expiry            *time.Time
}

// SealedCode is a code as the order keeps it.
type SealedCode struct {
	Code              []byte
	Pin               []byte
	ProviderVoucherID string
	Value             money.Amount
	Expiry            *time.Time
}

// Channel is who placed an order.
type Channel string

// The channels.
const (
	// Store: a player buying a reward with coins.
	Store Channel = "STORE"
	// Partner: a partner buying a gift card for its own user, paid from its wallet or in cash.
	Partner Channel = "PARTNER"
)

// Order is one purchase.
type Order struct {
	ID          uuid.UUID
	Channel     Channel
	GameID      uuid.UUID
	Environment studio.Environment
	// PlayerID and CoinID are a store order's (uuid.Nil on a partner order).
	PlayerID uuid.UUID
	// UserRef is how the studio knows the player (its uuid, else the player id), for the coin
	// events of the order's debit and refund.
	UserRef    string
	RewardID   uuid.UUID
	RewardType catalogue.Type
	CoinID     uuid.UUID
	Status     Status
	// Denomination is the face value of one unit; FaceValue is Denomination × Quantity.
	Denomination money.Amount
	Quantity     int
	FaceValue    money.Amount
	CoinsSpent   int64
	DebitTxID    *uuid.UUID
	RefundTxID   *uuid.UUID
	// ProviderProduct is the voucher provider's product of an order it fulfils.
	ProviderProduct string
	Address         *players.Address
	FailureReason   string
	DeadlineAt      time.Time
	CreatedAt       time.Time
	UpdatedAt       time.Time
	Codes           []SealedCode
	// Partner holds a partner order's terms; nil on a store order.
	Partner *Terms
}

// Settlement is how a partner pays for its orders.
type Settlement string

// The settlement models.
const (
	// Wallet: debited from the partner's prepaid wallet.
	Wallet Settlement = "WALLET"
	// Cash: the partner's user pays through a payment provider's session.
	Cash Settlement = "CASH"
)

// PaymentStatus is where a partner order's payment stands.
type PaymentStatus string

// The payment states.
const (
	// NotRequired: a WALLET order.
	NotRequired PaymentStatus = "NOT_REQUIRED"
	// PaymentPending: a CASH order's session is open.
	PaymentPending PaymentStatus = "PENDING"
	// PaymentPaid: the user paid (a refund may be due when the order did not succeed).
	PaymentPaid PaymentStatus = "PAID"
	// PaymentExpired: the session ended unpaid.
	PaymentExpired PaymentStatus = "EXPIRED"
	// PaymentRefunded: the payment was given back.
	PaymentRefunded PaymentStatus = "REFUNDED"
)

// Customer is the partner's user an order is for.
type Customer struct {
	Ref   string `json:"ref"`
	Email string `json:"email,omitempty"`
	Phone string `json:"phone,omitempty"`
}

// Terms are what a partner order adds to an order.
type Terms struct {
	// ClientOrderID is the partner's idempotency key, unique per game and environment.
	ClientOrderID string
	Customer      Customer
	Settlement    Settlement
	// Amount is what the partner pays (WALLET) or its user pays (CASH), in Currency.
	Amount    money.Amount
	Currency  string
	BrandCode string
	BrandName string
	Payment   Payment
}

// Payment is a CASH order's payment session (PaymentStatus alone for a WALLET order).
type Payment struct {
	Status PaymentStatus
	// Provider is stripe or cashfree; SessionID the provider's id of the session; PayerToken
	// what the user is given (Stripe's approval URL, Cashfree's payment_session_id); PaymentID
	// the provider's id of the payment once paid.
	Provider, SessionID, PayerToken, PaymentID string
	ExpiresAt                                  *time.Time
	ReturnURL                                  string
}

// Step is a move that the transaction creating an order makes at once (Repo.Insert).
type Step struct {
	To     Status
	Reason string
}

// Transition is one recorded change of an order's status.
type Transition struct {
	From   *Status
	To     Status
	Reason string
	At     time.Time
}

// View is an order as its owner sees it: codes opened, and the balance after its debit.
type View struct {
	Order
	Codes []Code
	// Balance is the player's balance of the coin after the purchase's debit (or after the
	// refund of a failed order).
	Balance int64
}
