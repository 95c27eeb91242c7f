// Package vouchers is the port to the voucher provider: the outside system that sells gift
// cards and digital credits. The catalogue module imports its brands and products and asks for
// stock; the orders module places and reads orders. The HTTP adapter is adapters/vouchers; the
// fake is fakes/vouchers.
package vouchers

import (
	"context"
	"time"

	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/money"
)

// ValueType is how a product is priced: FIXED denominations or any VARIABLE value in a range.
type ValueType string

// The value types of the provider's products.
const (
	Fixed    ValueType = "FIXED"
	Variable ValueType = "VARIABLE"
)

// Brand is a brand of the provider's catalogue with its products.
type Brand struct {
	// Code is the provider's brand code, stable across syncs.
	Code        string
	Name        string
	Description string
	LogoURL     string
	WebsiteURL  string
	Terms       string
	HowToRedeem string
	// Categories are the provider's category names ("Shopping", "Food & Dining").
	Categories []string
	// Countries are ISO 3166-1 alpha-2 codes where the brand's cards work.
	Countries []string
	Products  []Product
}

// Product is one card of a brand, in one currency.
type Product struct {
	// ID is the provider's product id (a UTID), stable across syncs.
	ID        string
	Name      string
	Currency  string
	ValueType ValueType
	// Denominations are the values of a FIXED product, ascending.
	Denominations []money.Amount
	// MinValue and MaxValue bound a VARIABLE product.
	MinValue, MaxValue money.Amount
	// DiscountPct is the discount the provider gives us on face value.
	DiscountPct money.Pct
}

// Stock is what the provider can issue of one denomination.
type Stock struct {
	Denomination money.Amount
	Available    bool
	// Quantity is how many cards are left; nil means unlimited.
	Quantity *int64
}

// LevelOf returns the stock level of face value d among levels: a VARIABLE product (variable)
// reports one level, with Denomination 0, for its whole range. found is false when the provider
// reports none for d.
func LevelOf(levels []Stock, d money.Amount, variable bool) (lv Stock, found bool) {
	for _, lv := range levels {
		if lv.Denomination == d || (variable && lv.Denomination == 0) {
			return lv, true
		}
	}
	return Stock{}, false
}

// Covers reports whether the level can issue quantity cards now.
func (s Stock) Covers(quantity int) bool {
	return s.Available && (s.Quantity == nil || *s.Quantity >= int64(quantity))
}

// OrderStatus is where an order stands at the provider.
type OrderStatus string

// The statuses of a provider order.
const (
	// Pending means the provider accepted the order and will issue or refuse it later.
	Pending OrderStatus = "PENDING"
	// Issued means the codes are there.
	Issued OrderStatus = "ISSUED"
	// Refused means the provider will never issue it.
	Refused OrderStatus = "REFUSED"
)

// Order asks the provider for cards.
type Order struct {
	// Reference is our order id: the provider's idempotency key. Placing the same reference
	// again returns the first order, never a second one.
	Reference    string
	ProductID    string
	Denomination money.Amount
	Quantity     int
	Currency     string
}

// Voucher is one issued card.
type Voucher struct {
	Code              string
	Pin               string
	ProviderVoucherID string
	Value             money.Amount
	Expiry            *time.Time
}

// Result is the state of an order at the provider.
type Result struct {
	Status   OrderStatus
	Vouchers []Voucher
	// Reason says why a Refused order was refused.
	Reason string
}

// ErrUnavailable means the provider did not answer or answered with a server error: the
// outcome of an order call is unknown and must be asked again (GetOrder), never assumed.
var ErrUnavailable = errs.New(errs.Upstream, "VOUCHER_PROVIDER_UNAVAILABLE", "the voucher provider is unavailable; try again later")

// ErrOrderNotFound means the provider has no order with the reference.
var ErrOrderNotFound = errs.New(errs.NotFound, "VOUCHER_ORDER_NOT_FOUND", "the voucher provider has no such order")

// Provider is the voucher provider.
type Provider interface {
	// Catalogue returns every brand with its products in currency.
	Catalogue(ctx context.Context, currency string) ([]Brand, error)
	// Stock returns the stock of each denomination of a product.
	Stock(ctx context.Context, productID string) ([]Stock, error)
	// PlaceOrder places o, or returns the order already placed with o.Reference.
	PlaceOrder(ctx context.Context, o Order) (Result, error)
	// GetOrder reads the order placed with reference, or ErrOrderNotFound.
	GetOrder(ctx context.Context, reference string) (Result, error)
}
