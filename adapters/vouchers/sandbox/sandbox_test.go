package sandbox_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/vouchers/sandbox"
	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/vouchers"
)

// clock is a settable clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time          { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Advance(d time.Duration) { c.mu.Lock(); defer c.mu.Unlock(); c.now = c.now.Add(d) }

func setup(t *testing.T) (*sandbox.Provider, *clock) {
	t.Helper()
	clk := &clock{now: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)}
	products := map[string]sandbox.Product{
		"P-AMAZON":    {Brand: "AMAZON", Denominations: []money.Amount{100_00, 500_00}},
		"P-ANY":       {Brand: "FLIPKART", Variable: true, Min: 1_00, Max: 10_000_00},
		"P-FAIL":      {Brand: sandbox.BrandFail, Denominations: []money.Amount{100_00}},
		"P-SLOW":      {Brand: sandbox.BrandSlow, Denominations: []money.Amount{100_00}},
		"P-SLOW-FAIL": {Brand: sandbox.BrandSlowFail, Denominations: []money.Amount{100_00}},
		"P-NO-STOCK":  {Brand: sandbox.BrandNoStock, Denominations: []money.Amount{100_00}},
	}
	lookup := func(_ context.Context, id string) (sandbox.Product, error) {
		p, ok := products[id]
		if !ok {
			return sandbox.Product{}, errs.New(errs.NotFound, "REWARD_NOT_FOUND", "no such product")
		}
		return p, nil
	}
	return sandbox.New(lookup, sandbox.WithDelay(10*time.Second), sandbox.WithClock(clk.Now)), clk
}

func TestSandboxFulfilsEveryProductWithSandboxCodes(t *testing.T) {
	t.Parallel()
	p, _ := setup(t)
	ctx := context.Background()
	levels, err := p.Stock(ctx, "P-AMAZON")
	require.NoError(t, err)
	require.Len(t, levels, 2)
	for _, lv := range levels {
		require.True(t, lv.Covers(1000), "unlimited stock")
	}
	levels, err = p.Stock(ctx, "P-ANY")
	require.NoError(t, err)
	lv, found := vouchers.LevelOf(levels, 123_45, true)
	require.True(t, found && lv.Covers(5))

	res, err := p.PlaceOrder(ctx, vouchers.Order{Reference: "o-1", ProductID: "P-AMAZON", Denomination: 500_00, Quantity: 3})
	require.NoError(t, err)
	require.Equal(t, vouchers.Issued, res.Status)
	require.Len(t, res.Vouchers, 3)
	for _, v := range res.Vouchers {
		require.True(t, strings.HasPrefix(v.Code, sandbox.CodePrefix), v.Code)
		require.Equal(t, money.Amount(500_00), v.Value)
	}
	// Idempotent by reference (the port's contract): placing it again, in any form, returns the
	// first order.
	again, err := p.PlaceOrder(ctx, vouchers.Order{Reference: "o-1", ProductID: "P-AMAZON", Denomination: 500_00, Quantity: 3})
	require.NoError(t, err)
	require.Equal(t, res, again)
	again, err = p.PlaceOrder(ctx, vouchers.Order{Reference: "o-1", ProductID: "P-AMAZON", Denomination: 100_00, Quantity: 3})
	require.NoError(t, err)
	require.Equal(t, res, again)
	got, err := p.GetOrder(ctx, "o-1")
	require.NoError(t, err)
	require.Equal(t, res, got)
	_, err = p.GetOrder(ctx, "never")
	require.ErrorIs(t, err, vouchers.ErrOrderNotFound)
	_, err = p.Stock(ctx, "P-UNKNOWN")
	require.Error(t, err)
}

func TestSandboxBrandsForceOutcomes(t *testing.T) {
	t.Parallel()
	p, clk := setup(t)
	ctx := context.Background()
	place := func(ref, product string) vouchers.Result {
		r, err := p.PlaceOrder(ctx, vouchers.Order{Reference: ref, ProductID: product, Denomination: 100_00, Quantity: 1})
		require.NoError(t, err)
		return r
	}
	require.Equal(t, vouchers.Refused, place("f", "P-FAIL").Status)
	levels, err := p.Stock(ctx, "P-NO-STOCK")
	require.NoError(t, err)
	require.False(t, levels[0].Covers(1))
	require.Equal(t, vouchers.Refused, place("n", "P-NO-STOCK").Status)

	require.Equal(t, vouchers.Pending, place("s", "P-SLOW").Status)
	require.Equal(t, vouchers.Pending, place("sf", "P-SLOW-FAIL").Status)
	clk.Advance(9 * time.Second)
	r, err := p.GetOrder(ctx, "s")
	require.NoError(t, err)
	require.Equal(t, vouchers.Pending, r.Status)
	clk.Advance(time.Second)
	r, err = p.GetOrder(ctx, "s")
	require.NoError(t, err)
	require.Equal(t, vouchers.Issued, r.Status)
	require.Len(t, r.Vouchers, 1)
	r, err = p.GetOrder(ctx, "sf")
	require.NoError(t, err)
	require.Equal(t, vouchers.Refused, r.Status)
	require.Contains(t, r.Reason, "SANDBOX_SLOW_FAIL")
}

func TestSandboxKeepsAProductLookupForItsTTL(t *testing.T) {
	t.Parallel()
	clk := &clock{now: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)}
	var mu sync.Mutex
	calls := map[string]int{}
	products := map[string]sandbox.Product{"P-AMAZON": {Brand: "AMAZON", Denominations: []money.Amount{100_00}}}
	lookup := func(_ context.Context, id string) (sandbox.Product, error) {
		mu.Lock()
		defer mu.Unlock()
		calls[id]++
		p, ok := products[id]
		if !ok {
			return sandbox.Product{}, sandbox.ErrUnknownProduct
		}
		return p, nil
	}
	count := func(id string) int { mu.Lock(); defer mu.Unlock(); return calls[id] }
	p := sandbox.New(lookup, sandbox.WithProductTTL(5*time.Second), sandbox.WithClock(clk.Now))
	ctx := context.Background()

	// A purchase's stock check and its order read the product once.
	_, err := p.Stock(ctx, "P-AMAZON")
	require.NoError(t, err)
	r, err := p.PlaceOrder(ctx, vouchers.Order{Reference: "o-1", ProductID: "P-AMAZON", Denomination: 100_00, Quantity: 1})
	require.NoError(t, err)
	require.Equal(t, vouchers.Issued, r.Status)
	require.Equal(t, 1, count("P-AMAZON"))

	// Past the TTL the catalogue is read again, and its change is seen.
	mu.Lock()
	products["P-AMAZON"] = sandbox.Product{Brand: sandbox.BrandFail, Denominations: []money.Amount{100_00}}
	mu.Unlock()
	clk.Advance(5 * time.Second)
	r, err = p.PlaceOrder(ctx, vouchers.Order{Reference: "o-2", ProductID: "P-AMAZON", Denomination: 100_00, Quantity: 1})
	require.NoError(t, err)
	require.Equal(t, vouchers.Refused, r.Status)
	require.Equal(t, 2, count("P-AMAZON"))

	// A product the catalogue does not know is not kept: once synced, it is found at once.
	_, err = p.Stock(ctx, "P-NEW")
	require.ErrorIs(t, err, sandbox.ErrUnknownProduct)
	mu.Lock()
	products["P-NEW"] = sandbox.Product{Brand: "AMAZON", Denominations: []money.Amount{100_00}}
	mu.Unlock()
	_, err = p.Stock(ctx, "P-NEW")
	require.NoError(t, err)
	require.Equal(t, 2, count("P-NEW"))

	// Without a TTL every call reads the catalogue.
	p = sandbox.New(lookup, sandbox.WithProductTTL(0), sandbox.WithClock(clk.Now))
	for range 2 {
		_, err = p.Stock(ctx, "P-NEW")
		require.NoError(t, err)
	}
	require.Equal(t, 4, count("P-NEW"))
}
