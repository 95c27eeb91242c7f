// Package sandbox is the built-in voucher provider of the test environment: an in-process
// adapter of the core vouchers.Provider port that never reaches a real provider account, so
// that a test key (which ships in game builds) can never turn test coins or a test wallet into
// real gift cards.
//
// It fulfils every product of the catalogue (synced from the live provider) in every
// denomination the catalogue offers, with codes that start "SANDBOX-", reports unlimited stock,
// and honours the sandbox brands exactly as the fake provider of fakes/vouchers does:
// SANDBOX_FAIL refuses at once, SANDBOX_SLOW issues after the delay, SANDBOX_SLOW_FAIL refuses
// after the delay, and SANDBOX_NO_STOCK has no stock and refuses every order.
//
// A product's lookup is kept for ProductTTL (WithProductTTL), so that a purchase's stock check
// and its order, moments apart, read the catalogue once between them.
//
// Orders are kept in memory, by reference. An instance that never saw an order (another
// instance placed it, or this one restarted) answers vouchers.ErrOrderNotFound, and the orders
// saga places it again with the same reference, as it does with a real provider.
package sandbox

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/rewardsco/rewards/adapters/vouchers"
	"github.com/rewardsco/rewards/core/money"
	core "github.com/rewardsco/rewards/core/vouchers"
)

// The sandbox brands (catalogue brand codes): ordering one of their products forces an outcome.
const (
	BrandFail     = "SANDBOX_FAIL"
	BrandSlow     = "SANDBOX_SLOW"
	BrandSlowFail = "SANDBOX_SLOW_FAIL"
	BrandNoStock  = "SANDBOX_NO_STOCK"
)

// CodePrefix starts every code the sandbox issues.
const CodePrefix = "SANDBOX-"

// DefaultDelay is how long SANDBOX_SLOW and SANDBOX_SLOW_FAIL orders stay pending.
const DefaultDelay = 10 * time.Second

// Product is what the sandbox needs to know of a catalogue product.
type Product struct {
	// Brand is the catalogue brand code of the product.
	Brand string
	// Variable is true for a product sold at any value from Min to Max; otherwise it offers
	// Denominations.
	Variable      bool
	Denominations []money.Amount
	Min, Max      money.Amount
}

// Lookup finds a provider product in the catalogue; an error for a product it does not know.
type Lookup func(ctx context.Context, productID string) (Product, error)

// ErrUnknownProduct is what Lookup returns for a product the catalogue does not have.
var ErrUnknownProduct = errors.New("sandbox: no such product in the catalogue")

// DefaultProductTTL is how long a product's lookup is kept unless WithProductTTL says otherwise.
const DefaultProductTTL = 5 * time.Second

// maxProducts bounds the products kept; past it, expired ones are dropped, then all of them.
const maxProducts = 10_000

// Provider is the sandbox voucher provider. Use New.
type Provider struct {
	lookup     Lookup
	delay      time.Duration
	productTTL time.Duration
	now        func() time.Time

	mu     sync.Mutex
	orders map[string]*order

	// products are the lookups of less than productTTL ago (nil: none kept).
	products *vouchers.Recent[string, Product]
}

var _ core.Provider = (*Provider)(nil)

type order struct {
	result   core.Result
	settleAt time.Time
	refuse   string // the reason a slow order is refused with when it settles
	place    core.Order
}

// Option configures a Provider.
type Option func(*Provider)

// WithDelay sets how long the slow sandbox brands stay pending (default DefaultDelay).
func WithDelay(d time.Duration) Option { return func(p *Provider) { p.delay = d } }

// WithProductTTL sets how long a product's lookup is kept (default DefaultProductTTL); zero or
// less looks every product up on every call.
func WithProductTTL(d time.Duration) Option { return func(p *Provider) { p.productTTL = d } }

// WithClock sets the clock (default time.Now).
func WithClock(now func() time.Time) Option { return func(p *Provider) { p.now = now } }

// New returns a sandbox provider that finds products with lookup.
func New(lookup Lookup, opts ...Option) *Provider {
	p := &Provider{lookup: lookup, delay: DefaultDelay, productTTL: DefaultProductTTL, now: time.Now,
		orders: map[string]*order{}}
	for _, o := range opts {
		o(p)
	}
	if p.productTTL > 0 {
		p.products = vouchers.NewRecent[string, Product](p.productTTL, maxProducts, p.now)
	}
	return p
}

// Catalogue implements vouchers.Provider: the sandbox has no catalogue of its own (both
// environments share the one synced from the live provider).
func (p *Provider) Catalogue(context.Context, string) ([]core.Brand, error) {
	return nil, errors.New("sandbox: the catalogue is synced from the live voucher provider, not the sandbox")
}

// Stock implements vouchers.Provider: unlimited stock of every denomination, none of
// SANDBOX_NO_STOCK.
func (p *Provider) Stock(ctx context.Context, productID string) ([]core.Stock, error) {
	pr, err := p.product(ctx, productID)
	if err != nil {
		return nil, fmt.Errorf("sandbox stock of %s: %w", productID, err)
	}
	available := pr.Brand != BrandNoStock
	level := func(d money.Amount) core.Stock {
		s := core.Stock{Denomination: d, Available: available}
		if !available {
			zero := int64(0)
			s.Quantity = &zero
		}
		return s
	}
	if pr.Variable {
		return []core.Stock{level(0)}, nil
	}
	out := make([]core.Stock, 0, len(pr.Denominations))
	for _, d := range pr.Denominations {
		out = append(out, level(d))
	}
	return out, nil
}

// PlaceOrder implements vouchers.Provider, idempotent by reference.
func (p *Provider) PlaceOrder(ctx context.Context, o core.Order) (core.Result, error) {
	if o.Reference == "" || o.ProductID == "" || o.Denomination <= 0 || o.Quantity < 1 || o.Quantity > 100 {
		return core.Result{}, fmt.Errorf("sandbox: order needs a reference, a product, a positive value and 1 to 100 cards")
	}
	p.mu.Lock()
	if have := p.orders[o.Reference]; have != nil {
		defer p.mu.Unlock()
		return p.settle(have), nil
	}
	p.mu.Unlock()

	pr, err := p.product(ctx, o.ProductID)
	if err != nil {
		return core.Result{}, fmt.Errorf("sandbox order of %s: %w", o.ProductID, err)
	}
	switch {
	case pr.Variable && (o.Denomination < pr.Min || o.Denomination > pr.Max):
		return core.Result{}, fmt.Errorf("sandbox: product %s takes %s to %s, not %s", o.ProductID, pr.Min, pr.Max, o.Denomination)
	case !pr.Variable && !slices.Contains(pr.Denominations, o.Denomination):
		return core.Result{}, fmt.Errorf("sandbox: product %s has no face value %s", o.ProductID, o.Denomination)
	}
	now := p.now()
	rec := &order{place: o}
	switch pr.Brand {
	case BrandFail:
		rec.result = core.Result{Status: core.Refused, Reason: "SANDBOX_FAIL: the sandbox refused the order"}
	case BrandNoStock:
		rec.result = core.Result{Status: core.Refused, Reason: "OUT_OF_STOCK: the sandbox brand SANDBOX_NO_STOCK has no stock"}
	case BrandSlow:
		rec.result, rec.settleAt = core.Result{Status: core.Pending}, now.Add(p.delay)
	case BrandSlowFail:
		rec.result, rec.settleAt = core.Result{Status: core.Pending}, now.Add(p.delay)
		rec.refuse = "SANDBOX_SLOW_FAIL: the sandbox refused the order"
	default:
		rec.result = issue(o, now)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if have := p.orders[o.Reference]; have != nil { // placed concurrently: the first one stands
		return p.settle(have), nil
	}
	p.orders[o.Reference] = rec
	return p.settle(rec), nil
}

// product looks a product up, or answers the lookup of less than productTTL ago. A product is
// found by its provider product id, which is unique in the catalogue, and only what the lookup
// found is kept (never an error, so a product the catalogue gains is seen at once): a kept
// product is the one the catalogue held under that id at most productTTL ago. The
// purchase itself checks the reward and its face value against the catalogue in PostgreSQL
// before any order, so an answer up to productTTL old can never let through a purchase the
// catalogue refuses; it only decides the sandbox's own outcome, as the product was when the
// purchase checked its stock.
func (p *Provider) product(ctx context.Context, productID string) (Product, error) {
	if p.products == nil {
		return p.lookup(ctx, productID)
	}
	if pr, ok := p.products.Get(productID); ok {
		return pr, nil
	}
	at := p.now()
	pr, err := p.lookup(ctx, productID)
	if err != nil {
		return Product{}, err
	}
	pr.Denominations = slices.Clip(slices.Clone(pr.Denominations))
	p.products.Put(productID, pr, at)
	return pr, nil
}

// GetOrder implements vouchers.Provider.
func (p *Provider) GetOrder(_ context.Context, reference string) (core.Result, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	o := p.orders[reference]
	if o == nil {
		return core.Result{}, core.ErrOrderNotFound
	}
	return p.settle(o), nil
}

// settle completes a pending order whose time has come and returns a copy of its result. The
// caller holds p.mu.
func (p *Provider) settle(o *order) core.Result {
	if o.result.Status == core.Pending && !p.now().Before(o.settleAt) {
		if o.refuse != "" {
			o.result = core.Result{Status: core.Refused, Reason: o.refuse}
		} else {
			o.result = issue(o.place, p.now())
		}
	}
	r := o.result
	r.Vouchers = slices.Clone(r.Vouchers)
	return r
}

// issue makes an order's cards: codes SANDBOX-XXXX-XXXX-XXXX, valid for a year.
func issue(o core.Order, now time.Time) core.Result {
	expiry := now.UTC().Truncate(time.Second).AddDate(1, 0, 0)
	out := core.Result{Status: core.Issued, Vouchers: make([]core.Voucher, 0, o.Quantity)}
	for range o.Quantity {
		c := rand.Text()[:12] // base32: A-Z and 2-7
		out.Vouchers = append(out.Vouchers, core.Voucher{
			Code:              CodePrefix + c[0:4] + "-" + c[4:8] + "-" + c[8:12],
			Pin:               rand.Text()[:6],
			ProviderVoucherID: "SBX-" + rand.Text()[:16],
			Value:             o.Denomination,
			Expiry:            &expiry,
		})
	}
	return out
}
