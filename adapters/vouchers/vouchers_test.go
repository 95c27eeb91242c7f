package vouchers_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	adapter "github.com/rewardsco/rewards/adapters/vouchers"
	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/money"
	core "github.com/rewardsco/rewards/core/vouchers"
	fake "github.com/rewardsco/rewards/fakes/vouchers"
)

// start serves a new fake provider and returns it with a client of it.
func start(t *testing.T, fakeOpts []fake.Option, opts ...adapter.Option) (*fake.Provider, *adapter.Client, string) {
	t.Helper()
	p := fake.New(fakeOpts...)
	mux := http.NewServeMux()
	p.Register(mux)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return p, adapter.New(srv.URL+"/vouchers/", "key", opts...), srv.URL
}

func brand(t *testing.T, brands []core.Brand, code string) core.Brand {
	t.Helper()
	for _, b := range brands {
		if b.Code == code {
			return b
		}
	}
	t.Fatalf("no brand %s", code)
	return core.Brand{}
}

func product(t *testing.T, b core.Brand, id string) core.Product {
	t.Helper()
	for _, p := range b.Products {
		if p.ID == id {
			return p
		}
	}
	t.Fatalf("brand %s has no product %s", b.Code, id)
	return core.Product{}
}

func TestCatalogue(t *testing.T) {
	t.Parallel()
	_, c, base := start(t, nil)
	ctx := context.Background()
	for _, currency := range []string{"INR", "USD"} {
		brands, err := c.Catalogue(ctx, currency)
		require.NoError(t, err)
		ordinary := 0
		for _, b := range brands {
			require.NotEmpty(t, b.Products, b.Code)
			require.NotEmpty(t, b.Name)
			require.NotEmpty(t, b.Categories)
			require.NotEmpty(t, b.Countries)
			require.Equal(t, base+"/vouchers/images/"+b.Code+".svg?w=300", b.LogoURL)
			if !strings.HasPrefix(b.Code, "SANDBOX_") {
				ordinary++
			}
			for _, p := range b.Products {
				require.Equal(t, currency, p.Currency, "only products of the requested currency")
				require.LessOrEqual(t, p.DiscountPct, money.Pct(1000))
				switch p.ValueType {
				case core.Fixed:
					require.NotEmpty(t, p.Denominations)
					require.IsIncreasing(t, p.Denominations)
					require.Zero(t, p.MinValue)
				case core.Variable:
					require.Empty(t, p.Denominations)
					require.Positive(t, p.MinValue)
					require.Less(t, p.MinValue, p.MaxValue)
				default:
					t.Fatalf("value type %q", p.ValueType)
				}
			}
		}
		require.GreaterOrEqual(t, ordinary, 30, currency)
		for _, sb := range []string{fake.SandboxFail, fake.SandboxSlow, fake.SandboxSlowFail, fake.SandboxNoStock} {
			require.Len(t, brand(t, brands, sb).Products, 1, "%s in %s", sb, currency)
		}
	}

	inr, err := c.Catalogue(ctx, "inr")
	require.NoError(t, err)
	amazon := brand(t, inr, "AMAZON")
	require.Equal(t, "Amazon", amazon.Name)
	require.Equal(t, "https://www.amazon.com", amazon.WebsiteURL)
	require.Contains(t, amazon.Terms, "Amazon")
	require.NotEmpty(t, amazon.HowToRedeem)
	require.NotEmpty(t, amazon.Description)
	require.Equal(t, []string{"Shopping"}, amazon.Categories)
	require.Len(t, amazon.Products, 2, "the USD and GBP items are left out")
	fixed := product(t, amazon, "U-AMAZON-INR-F")
	require.Equal(t, core.Product{ID: "U-AMAZON-INR-F", Name: "Amazon Gift Card (INR)", Currency: "INR", ValueType: core.Fixed,
		Denominations: []money.Amount{100_00, 250_00, 500_00, 1000_00, 2000_00, 5000_00}, DiscountPct: 250}, fixed)
	variable := product(t, amazon, "U-AMAZON-INR-V")
	require.Equal(t, core.Variable, variable.ValueType)
	require.Equal(t, money.Amount(10_00), variable.MinValue)
	require.Equal(t, money.Amount(10000_00), variable.MaxValue)
	require.Equal(t, money.Pct(200), variable.DiscountPct)
	tata := product(t, brand(t, inr, "TATA_CLIQ"), "U-TATA_CLIQ-INR-V")
	require.Equal(t, money.Pct(425), tata.DiscountPct)
	for _, b := range inr {
		require.NotEqual(t, "TESCO", b.Code, "a GBP-only brand is not in INR")
	}

	usd, err := c.Catalogue(ctx, "USD")
	require.NoError(t, err)
	spotify := product(t, brand(t, usd, "SPOTIFY"), "U-SPOTIFY-USD-F")
	require.Equal(t, []money.Amount{1099, 3297, 6594}, spotify.Denominations, "cents survive exactly")
	apple := product(t, brand(t, usd, "APPLE"), "U-APPLE-USD-V")
	require.Equal(t, money.Amount(2_00), apple.MinValue)
	require.Equal(t, money.Pct(50), apple.DiscountPct)

	none, err := c.Catalogue(ctx, "EUR")
	require.NoError(t, err)
	require.Empty(t, none)
}

func TestStock(t *testing.T) {
	t.Parallel()
	_, c, _ := start(t, nil)
	ctx := context.Background()
	stock, err := c.Stock(ctx, "U-BEST_BUY-USD-F")
	require.NoError(t, err)
	require.Len(t, stock, 5)
	require.Equal(t, core.Stock{Denomination: 25_00, Available: true}, stock[0], "unlimited")
	require.Equal(t, money.Amount(500_00), stock[4].Denomination)
	require.True(t, stock[4].Available)
	require.Equal(t, int64(3), *stock[4].Quantity)

	res, err := c.PlaceOrder(ctx, core.Order{Reference: "bb-1", ProductID: "U-BEST_BUY-USD-F", Denomination: 500_00, Quantity: 2, Currency: "USD"})
	require.NoError(t, err)
	require.Equal(t, core.Issued, res.Status)
	stock, err = c.Stock(ctx, "U-BEST_BUY-USD-F")
	require.NoError(t, err)
	require.Equal(t, int64(1), *stock[4].Quantity, "stock decreases on issue")

	variable, err := c.Stock(ctx, "U-UBER-USD-V")
	require.NoError(t, err)
	require.Equal(t, []core.Stock{{Denomination: 0, Available: true}}, variable)

	none, err := c.Stock(ctx, "U-SANDBOX_NO_STOCK-INR-F")
	require.NoError(t, err)
	require.Len(t, none, 3)
	for _, s := range none {
		require.False(t, s.Available)
		require.Equal(t, int64(0), *s.Quantity)
	}

	_, err = c.Stock(ctx, "U-NOPE")
	require.ErrorContains(t, err, "404")
	require.Equal(t, errs.Internal, errs.KindOf(err))
}

func TestPlaceAndGetOrder(t *testing.T) {
	t.Parallel()
	p, c, _ := start(t, nil)
	ctx := context.Background()
	o := core.Order{Reference: "ord_01J9Z", ProductID: "U-SPOTIFY-USD-F", Denomination: 3297, Quantity: 2, Currency: "USD"}
	first, err := c.PlaceOrder(ctx, o)
	require.NoError(t, err)
	require.Equal(t, core.Issued, first.Status)
	require.Len(t, first.Vouchers, 2)
	for _, v := range first.Vouchers {
		require.NotEmpty(t, v.Code)
		require.NotEmpty(t, v.Pin)
		require.NotEmpty(t, v.ProviderVoucherID)
		require.Equal(t, money.Amount(3297), v.Value)
		require.NotNil(t, v.Expiry)
		require.WithinDuration(t, time.Now().AddDate(1, 0, 0), *v.Expiry, time.Minute)
	}
	require.NotEqual(t, first.Vouchers[0].Code, first.Vouchers[1].Code)

	again, err := c.PlaceOrder(ctx, o)
	require.NoError(t, err)
	require.Equal(t, first, again, "the same reference returns the first order")
	got, err := c.GetOrder(ctx, o.Reference)
	require.NoError(t, err)
	require.Equal(t, first, got)
	require.Len(t, p.Orders(), 1)
	require.Equal(t, 2, p.Orders()[0].Placements)

	variable, err := c.PlaceOrder(ctx, core.Order{Reference: "ord-v", ProductID: "U-UBER-USD-V", Denomination: 123_45, Quantity: 1, Currency: "USD"})
	require.NoError(t, err)
	require.Equal(t, money.Amount(123_45), variable.Vouchers[0].Value)

	o.Quantity = 3
	_, err = c.PlaceOrder(ctx, o)
	require.ErrorContains(t, err, "409")
	require.False(t, errors.Is(err, core.ErrUnavailable))
	require.Equal(t, errs.Internal, errs.KindOf(err))

	_, err = c.PlaceOrder(ctx, core.Order{Reference: "bad", ProductID: "U-SPOTIFY-USD-F", Denomination: 11_00, Quantity: 1, Currency: "USD"})
	require.ErrorContains(t, err, "DENOMINATION_NOT_OFFERED")
	require.Equal(t, errs.Internal, errs.KindOf(err))

	_, err = c.GetOrder(ctx, "unknown-ref")
	require.ErrorIs(t, err, core.ErrOrderNotFound)
	require.Equal(t, errs.NotFound, errs.KindOf(err))
}

func TestSandboxOutcomes(t *testing.T) {
	t.Parallel()
	_, c, _ := start(t, []fake.Option{fake.WithSandboxDelay(200 * time.Millisecond)})
	ctx := context.Background()
	order := func(ref, brand string) core.Result {
		res, err := c.PlaceOrder(ctx, core.Order{Reference: ref, ProductID: "U-" + brand + "-USD-F", Denomination: 10_00, Quantity: 1, Currency: "USD"})
		require.NoError(t, err)
		return res
	}
	fail := order("s-fail", fake.SandboxFail)
	require.Equal(t, core.Refused, fail.Status)
	require.NotEmpty(t, fail.Reason)
	require.Empty(t, fail.Vouchers)
	noStock := order("s-nostock", fake.SandboxNoStock)
	require.Equal(t, core.Refused, noStock.Status)
	require.Contains(t, noStock.Reason, "OUT_OF_STOCK")

	require.Equal(t, core.Result{Status: core.Pending}, order("s-slow", fake.SandboxSlow))
	require.Equal(t, core.Result{Status: core.Pending}, order("s-slowfail", fake.SandboxSlowFail))
	require.Eventually(t, func() bool {
		r, err := c.GetOrder(ctx, "s-slow")
		return err == nil && r.Status == core.Issued && len(r.Vouchers) == 1
	}, 5*time.Second, 25*time.Millisecond)
	require.Eventually(t, func() bool {
		r, err := c.GetOrder(ctx, "s-slowfail")
		return err == nil && r.Status == core.Refused && r.Reason != "" && len(r.Vouchers) == 0
	}, 5*time.Second, 25*time.Millisecond)
}

func TestFailuresMapToErrUnavailable(t *testing.T) {
	t.Parallel()
	p, c, base := start(t, nil, adapter.WithTimeout(150*time.Millisecond))
	ctx := context.Background()
	o := core.Order{Reference: "f-1", ProductID: "U-SWIGGY-INR-F", Denomination: 500_00, Quantity: 1, Currency: "INR"}

	p.SetBehaviour(fake.Behaviour{FailNext: 3})
	_, err := c.Catalogue(ctx, "INR")
	require.ErrorIs(t, err, core.ErrUnavailable)
	require.Equal(t, errs.Upstream, errs.KindOf(err))
	require.ErrorContains(t, err, "500", "the detail is kept for the log")
	_, err = c.PlaceOrder(ctx, o)
	require.ErrorIs(t, err, core.ErrUnavailable)
	_, err = c.GetOrder(ctx, "f-1")
	require.ErrorIs(t, err, core.ErrUnavailable, "a 500 on GetOrder is not a not-found")
	res, err := c.PlaceOrder(ctx, o)
	require.NoError(t, err, "failNext is spent")
	require.Equal(t, core.Issued, res.Status)

	p.SetBehaviour(fake.Behaviour{Status: http.StatusServiceUnavailable})
	_, err = c.Stock(ctx, "U-SWIGGY-INR-F")
	require.ErrorIs(t, err, core.ErrUnavailable)
	p.SetBehaviour(fake.Behaviour{Status: http.StatusTooManyRequests})
	_, err = c.Stock(ctx, "U-SWIGGY-INR-F")
	require.ErrorIs(t, err, core.ErrUnavailable)

	// A stall beyond the client's timeout: the outcome is unknown, and the order exists.
	p.SetBehaviour(fake.Behaviour{StallMs: 1000})
	stalled := core.Order{Reference: "f-2", ProductID: "U-SWIGGY-INR-F", Denomination: 250_00, Quantity: 1, Currency: "INR"}
	begin := time.Now()
	_, err = c.PlaceOrder(ctx, stalled)
	require.ErrorIs(t, err, core.ErrUnavailable)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Less(t, time.Since(begin), 900*time.Millisecond)
	p.SetBehaviour(fake.Behaviour{})
	got, err := c.GetOrder(ctx, "f-2")
	require.NoError(t, err)
	require.Equal(t, core.Issued, got.Status)
	replay, err := c.PlaceOrder(ctx, stalled)
	require.NoError(t, err)
	require.Equal(t, got, replay)

	// The caller's own deadline counts too.
	p.SetBehaviour(fake.Behaviour{StallMs: 1000})
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	_, err = c.GetOrder(short, "f-2")
	require.ErrorIs(t, err, core.ErrUnavailable)
	p.SetBehaviour(fake.Behaviour{})

	// Nobody listening.
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	_, err = adapter.New(dead.URL+"/vouchers", "key").Catalogue(ctx, "INR")
	require.ErrorIs(t, err, core.ErrUnavailable)

	// Not the provider at all: a 404 page on every path.
	_, err = adapter.New(base+"/elsewhere", "key").Catalogue(ctx, "INR")
	require.Error(t, err)
	require.False(t, errors.Is(err, core.ErrUnavailable))
}

func TestAPIKey(t *testing.T) {
	t.Parallel()
	p := fake.New(fake.WithAPIKey("s3cret"))
	mux := http.NewServeMux()
	p.Register(mux)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	ctx := context.Background()

	_, err := adapter.New(srv.URL+"/vouchers", "wrong").Catalogue(ctx, "INR")
	require.ErrorContains(t, err, "401")
	require.Equal(t, errs.Internal, errs.KindOf(err), "a bad key is our fault, not an outage")
	brands, err := adapter.New(srv.URL+"/vouchers", "s3cret").Catalogue(ctx, "INR")
	require.NoError(t, err)
	require.NotEmpty(t, brands)
}
