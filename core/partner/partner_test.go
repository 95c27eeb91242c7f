package partner

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/sealed"
	"github.com/rewardsco/rewards/core/studio"
)

func TestPriceRoundsHalfUpToTheCent(t *testing.T) {
	for _, c := range []struct {
		face     money.Amount
		quantity int
		discount money.Pct
		amount   money.Amount
	}{
		{50000, 2, 0, 100000},
		{50000, 2, 250, 97500},
		{1099, 3, 333, 3187}, // 32.97 × 0.9667 = 31.872699 → 31.87
		{1, 1, 5000, 1},      // 0.005 rounds up to a cent
		{1, 1, 9000, 0},      // 0.001 rounds to nothing
		{123456, 10, 9000, 123456},
	} {
		face, amount := Price(c.face, c.quantity, c.discount)
		require.Equal(t, c.face.Times(int64(c.quantity)), face)
		require.Equal(t, c.amount, amount, "%s × %d less %d bp", c.face, c.quantity, c.discount)
	}
}

func TestQuoteHoldsItsPriceForTenMinutesAndOnlyForItsOrder(t *testing.T) {
	box, err := sealed.New(make([]byte, 32))
	require.NoError(t, err)
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	s := &Service{cfg: Config{Box: box, Currency: "INR"}, now: func() time.Time { return now }}
	c := Caller{GameID: uuid.New(), Environment: studio.Test, Settings: Settings{Enabled: true, Settlement: orders.Wallet, DiscountPct: 1000}}
	b := Brand{Code: "AMAZON", ValueType: Fixed, Denominations: []money.Amount{50000}}
	face, amount := Price(50000, 2, c.Settings.DiscountPct)
	q := quote{GameID: c.GameID, Environment: c.Environment, Brand: b.Code, Denomination: 50000, Quantity: 2, Amount: amount,
		ExpiresAt: now.Add(QuoteLifetime).Unix(), ID: "q-1", Discount: c.Settings.DiscountPct}
	require.Equal(t, money.Amount(100000), face)
	id := encodeQuote(s.cfg.Box, q)
	r := PlaceRequest{BrandCode: "AMAZON", Denomination: 50000, Quantity: 2, QuoteID: id}

	// The quote's amount holds, with its id for the order's transaction to record (single use).
	got, quoteID, err := s.price(c, r)
	require.NoError(t, err)
	require.Equal(t, amount, got)
	require.Equal(t, "q-1", quoteID)

	// A change of the partner's discount expires the quote.
	changed := c
	changed.Settings.DiscountPct = 0
	_, _, err = s.price(changed, r)
	require.Equal(t, ErrQuoteExpired.Code, errs.CodeOf(err))
	r.QuoteID = ""
	got, quoteID, err = s.price(changed, r)
	require.NoError(t, err)
	require.Equal(t, money.Amount(100000), got, "without a quote, today's price")
	require.Empty(t, quoteID)

	for name, bad := range map[string]PlaceRequest{
		"another quantity":     {BrandCode: "AMAZON", Denomination: 50000, Quantity: 1, QuoteID: id},
		"another brand":        {BrandCode: "FLIPKART", Denomination: 50000, Quantity: 2, QuoteID: id},
		"another denomination": {BrandCode: "AMAZON", Denomination: 10000, Quantity: 2, QuoteID: id},
		"garbage":              {BrandCode: "AMAZON", Denomination: 50000, Quantity: 2, QuoteID: "bm90LWEtcXVvdGU"},
	} {
		_, _, err := s.price(c, bad)
		require.Equal(t, ErrQuoteMismatch.Code, errs.CodeOf(err), name)
	}
	other := c
	other.GameID = uuid.New()
	_, _, err = s.price(other, PlaceRequest{BrandCode: "AMAZON", Denomination: 50000, Quantity: 2, QuoteID: id})
	require.Equal(t, ErrQuoteMismatch.Code, errs.CodeOf(err), "another partner's quote")

	now = now.Add(QuoteLifetime)
	_, _, err = s.price(c, PlaceRequest{BrandCode: "AMAZON", Denomination: 50000, Quantity: 2, QuoteID: id})
	require.Equal(t, ErrQuoteExpired.Code, errs.CodeOf(err))
}

func TestPlaceRequestValidation(t *testing.T) {
	ok := PlaceRequest{ClientOrderID: "ord-1_A", BrandCode: "AMAZON", Denomination: 100, Quantity: 1, Customer: orders.Customer{Ref: "u1"}}
	require.NoError(t, ok.validate())
	for name, mutate := range map[string]func(*PlaceRequest){
		"clientOrderId with a space": func(r *PlaceRequest) { r.ClientOrderID = "a b" },
		"clientOrderId too long":     func(r *PlaceRequest) { r.ClientOrderID = string(make([]byte, 65)) },
		"quantity 0":                 func(r *PlaceRequest) { r.Quantity = 0 },
		"quantity 11":                func(r *PlaceRequest) { r.Quantity = 11 },
		"no customer ref":            func(r *PlaceRequest) { r.Customer.Ref = " " },
		"bad email":                  func(r *PlaceRequest) { r.Customer.Email = "nope" },
		"phone not E.164":            func(r *PlaceRequest) { r.Customer.Phone = "98765 43210" },
		"returnUrl not http":         func(r *PlaceRequest) { r.ReturnURL = "javascript:alert(1)" },
	} {
		r := ok
		mutate(&r)
		require.Equal(t, errs.ErrInvalid.Code, errs.CodeOf(r.validate()), name)
	}
}
