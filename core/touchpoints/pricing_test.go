package touchpoints_test

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/touchpoints"
)

func balance(n int64) *int64 { return &n }

// TestQuote is the pricing table of api-decisions: coins pay up to maxCoinDiscountPct of the
// price, capped by the player's balance when a token is sent; coinsRequired = ceil(discount ×
// coinsPerUnit); no offer when the coin can pay nothing.
func TestQuote(t *testing.T) {
	t.Parallel()
	coinID := uuid.New()
	coin := func(bal *int64) *touchpoints.Coin {
		return &touchpoints.Coin{ID: coinID, Name: "Gems", ImageURL: "https://cdn/g.png", CoinsPerUnit: 10, Balance: bal}
	}
	// An item of mrp 1,000.00 selling at 800.00 (20% off).
	const mrp, price = money.Amount(100000), money.Amount(80000)
	tests := []struct {
		name          string
		maxPct        money.Pct
		coin          *touchpoints.Coin
		wantOffer     bool
		wantDiscount  money.Amount
		wantCoins     int64
		wantAfter     money.Amount
		wantPlayerCap bool
	}{
		{name: "no player: half the price, uncapped", maxPct: 5000, coin: coin(nil), wantOffer: true, wantDiscount: 40000, wantCoins: 4000, wantAfter: 40000},
		{name: "no player: all of the price", maxPct: 10000, coin: coin(nil), wantOffer: true, wantDiscount: 80000, wantCoins: 8000, wantAfter: 0},
		{name: "maxCoinDiscountPct 0: coins pay nothing", maxPct: 0, coin: coin(nil), wantAfter: price},
		{name: "balance 0: coins pay nothing", maxPct: 5000, coin: coin(balance(0)), wantAfter: price},
		{name: "partial balance: its worth", maxPct: 5000, coin: coin(balance(1234)), wantOffer: true, wantDiscount: 12340, wantCoins: 1234, wantAfter: 67660},
		{name: "balance just enough", maxPct: 5000, coin: coin(balance(4000)), wantOffer: true, wantDiscount: 40000, wantCoins: 4000, wantAfter: 40000},
		{name: "more than enough: capped by the share", maxPct: 5000, coin: coin(balance(1_000_000)), wantOffer: true, wantDiscount: 40000, wantCoins: 4000, wantAfter: 40000},
		{name: "100% with more than enough", maxPct: 10000, coin: coin(balance(9000)), wantOffer: true, wantDiscount: 80000, wantCoins: 8000, wantAfter: 0},
		{name: "balance worth less than a hundredth", maxPct: 5000, coin: &touchpoints.Coin{ID: coinID, CoinsPerUnit: 1000, Balance: balance(5)}, wantAfter: price},
		{name: "the game has no coin", maxPct: 5000, coin: nil, wantAfter: price},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, offer := touchpoints.Quote("INR", mrp, price, tt.maxPct, tt.coin)
			require.Equal(t, touchpoints.Pricing{Currency: "INR", MRP: mrp, Price: price, DiscountPct: 2000, PriceAfterCoins: tt.wantAfter}, p)
			if !tt.wantOffer {
				require.Nil(t, offer)
				return
			}
			require.NotNil(t, offer)
			require.Equal(t, tt.wantDiscount, offer.CoinDiscount)
			require.Equal(t, tt.wantCoins, offer.CoinsRequired)
			require.Equal(t, coinID, offer.CoinID)
			if tt.coin.Balance != nil {
				require.LessOrEqual(t, offer.CoinsRequired, *tt.coin.Balance, "never more coins than the player has")
			}
		})
	}
}

// TestQuoteRoundsCoinsUp checks coinsRequired is rounded up and the discount down: an odd
// price and a coin worth 3 coins a unit.
func TestQuoteRoundsCoinsUp(t *testing.T) {
	t.Parallel()
	coin := &touchpoints.Coin{CoinsPerUnit: 3}
	_, offer := touchpoints.Quote("INR", 999, 999, 3333, coin) // 33.33% of 9.99 = 3.3296… → 3.32
	require.Equal(t, money.Amount(332), offer.CoinDiscount)
	require.Equal(t, int64(10), offer.CoinsRequired) // ceil(3.32 × 3 = 9.96)
	_, offer = touchpoints.Quote("INR", 999, 999, 3333, &touchpoints.Coin{CoinsPerUnit: 3, Balance: balance(7)})
	require.Equal(t, money.Amount(233), offer.CoinDiscount) // 7 coins are worth 2.333… → 2.33
	require.Equal(t, int64(7), offer.CoinsRequired)
}

func TestStale(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 12, 0, 0, 0, time.UTC)
	require.False(t, touchpoints.Stale(now.Add(-23*time.Hour), now))
	require.False(t, touchpoints.Stale(now.Add(-24*time.Hour), now))
	require.True(t, touchpoints.Stale(now.Add(-24*time.Hour-time.Second), now))
}

// TestPriceProduct: a product is priced with its own maxCoinDiscountPct, and a price snapshot
// over 24 hours old gives no pricing and no coin offer.
func TestPriceProduct(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 12, 0, 0, 0, time.UTC)
	coin := &touchpoints.Coin{ID: uuid.New(), CoinsPerUnit: 10, Balance: balance(100)}
	p := catalogue.Product{ID: "p1", MRP: 20000, ListingPrice: 18000, DiscountedListingPrice: 15000, MaxCoinDiscountPct: 2000, PriceUpdatedAt: now.Add(-time.Hour)}
	pricing, offer := touchpoints.PriceProduct("INR", p, coin, now)
	require.Equal(t, &touchpoints.Pricing{Currency: "INR", MRP: 20000, Price: 15000, DiscountPct: 2500, PriceAfterCoins: 14000}, pricing)
	require.Equal(t, money.Amount(1000), offer.CoinDiscount) // 100 coins are worth 10.00 < 20% of 150.00
	require.Equal(t, int64(100), offer.CoinsRequired)

	p.PriceUpdatedAt = now.Add(-25 * time.Hour)
	pricing, offer = touchpoints.PriceProduct("INR", p, coin, now)
	require.Nil(t, pricing)
	require.Nil(t, offer)
}
