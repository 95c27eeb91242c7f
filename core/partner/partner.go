// Package partner is the gift-card partner API's core: a game's partner settings, client secret
// and 24-hour bearer tokens per environment; the prepaid wallet and its ledger (balance = sum of
// entries, never negative); the catalogue of gift cards partners buy, priced with the partner's
// discount; and partner orders placed through the orders module's saga, paid from the wallet
// (WALLET) or by the partner's user through a payment provider's session (CASH).
package partner

import (
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/studio"
)

// Limits of the partner API.
const (
	// TokenLifetime is how long a partner bearer token works.
	TokenLifetime = 24 * time.Hour
	// MaxTokens is how many tokens a game's environment holds at most: the exchange that would
	// make one more revokes the oldest.
	MaxTokens = 20
	// DefaultPaymentCheckEvery is how often a read of a PENDING_PAYMENT order asks the
	// provider, per order.
	DefaultPaymentCheckEvery = 10 * time.Second
	// MaxCredit bounds one wallet credit (1,000,000,000.00) and MaxBalance a wallet
	// (1,000,000,000,000.00), far below where the ledger's sums could overflow.
	MaxCredit  money.Amount = 1_000_000_000_00
	MaxBalance money.Amount = 1_000_000_000_000_00
	// QuoteLifetime is how long a preview's quote holds its price.
	QuoteLifetime = 10 * time.Minute
	// MaxQuantity is the most cards one order buys.
	MaxQuantity = 10
	// MaxDiscount is the largest partner discount (90 %).
	MaxDiscount money.Pct = 9000
	// DefaultSessionTTL is how long a CASH order's payment session stays open.
	DefaultSessionTTL = 30 * time.Minute
)

// WalletDebited is the reason of a WALLET order's first transition: its wallet paid for it.
const WalletDebited = "wallet debited"

// Settings are a game's partner settings (the same for both environments).
type Settings struct {
	GameID      uuid.UUID
	Enabled     bool
	Settlement  orders.Settlement
	DiscountPct money.Pct
	UpdatedAt   time.Time
}

// Caller is who a partner token says is calling.
type Caller struct {
	GameID      uuid.UUID
	StudioID    uuid.UUID
	GameName    string
	Environment studio.Environment
	Settings    Settings
}

// TokenRecord is what storage knows of a token found by its hash.
// TokenGrant is a token as the exchange stores it: valid until ExpiresAt, and only while the
// API key (KeyHash) and the client secret (SecretHash, nil when the environment had none) it
// was exchanged with are still current.
type TokenGrant struct {
	Hash        []byte
	GameID      uuid.UUID
	Environment studio.Environment
	ExpiresAt   time.Time
	KeyHash     []byte
	SecretHash  []byte
}

type TokenRecord struct {
	GameID      uuid.UUID
	StudioID    uuid.UUID
	GameName    string
	Environment studio.Environment
	ExpiresAt   time.Time
	// Settings are the game's partner settings; nil when it has none.
	Settings *Settings
}

// EntryKind is what moved a wallet.
type EntryKind string

// The kinds of wallet entries.
const (
	Credit EntryKind = "CREDIT"
	Debit  EntryKind = "DEBIT"
	Refund EntryKind = "REFUND"
)

// Entry is one change of a wallet: Amount is signed (debits negative).
type Entry struct {
	ID           int64
	GameID       uuid.UUID
	Environment  studio.Environment
	Kind         EntryKind
	Amount       money.Amount
	BalanceAfter money.Amount
	OrderID      *uuid.UUID
	Reference    string
	CreatedAt    time.Time
}

// ValueType is how a brand's card is priced: FIXED denominations or any DYNAMIC value in a range.
type ValueType string

// The value types of the partner API.
const (
	Fixed   ValueType = "FIXED"
	Dynamic ValueType = "DYNAMIC"
)

// Brand is a gift card partners can buy: a brand with the reward that sells it.
type Brand struct {
	Code        string
	Name        string
	LogoURL     string
	Categories  []string
	Description string
	Terms       string
	HowToRedeem string
	RewardID    uuid.UUID
	ValueType   ValueType
	// Denominations are a FIXED card's values, ascending; MinValue and MaxValue bound a
	// DYNAMIC one.
	Denominations      []money.Amount
	MinValue, MaxValue money.Amount
	// ProviderProduct is the voucher provider's product that fulfils it.
	ProviderProduct string
}

// Offers reports whether the card can be bought with face value d.
func (b Brand) Offers(d money.Amount) bool {
	if b.ValueType == Dynamic {
		return d >= b.MinValue && d <= b.MaxValue
	}
	for _, v := range b.Denominations {
		if v == d {
			return true
		}
	}
	return false
}

// BrandQuery selects a page of brands: those whose name or code contains Search.
type BrandQuery struct {
	Search        string
	Limit, Offset int
}

// Stock is what can be bought of one denomination; Quantity nil means unlimited.
type Stock struct {
	BrandCode    string
	Denomination money.Amount
	Available    bool
	Quantity     *int64
}

// Preview is an order's price before it is placed.
type Preview struct {
	Brand        Brand
	Denomination money.Amount
	Quantity     int
	FaceValue    money.Amount
	Settlement   orders.Settlement
	// Amount is what the wallet is debited (WALLET) or the user pays (CASH): the authoritative price.
	Amount    money.Amount
	Currency  string
	QuoteID   string
	ExpiresAt time.Time
}

// Price is what a partner with discount d pays for quantity cards of face value f.
func Price(f money.Amount, quantity int, d money.Pct) (face, amount money.Amount) {
	face = f.Times(int64(quantity))
	return face, face.Less(d)
}
