package touchpoints

import (
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/money"
)

// StaleAfter is how old a product's price snapshot may be before touchpoints stop quoting it.
const StaleAfter = 24 * time.Hour

// Coin is the coin that prices a touchpoint, with the player's balance of it when a player
// token was sent.
type Coin struct {
	ID           uuid.UUID
	Name         string
	ImageURL     string
	CoinsPerUnit int64
	// Balance is the player's balance; nil when no player token was sent.
	Balance *int64
}

// Pricing is an item's money price: mrp, selling price, the discount on mrp, and what is left
// to pay when coins pay their share.
type Pricing struct {
	Currency        string
	MRP             money.Amount
	Price           money.Amount
	DiscountPct     money.Pct
	PriceAfterCoins money.Amount
}

// CoinOffer is what the touchpoint coin can pay of an item's price.
type CoinOffer struct {
	CoinID        uuid.UUID
	CoinName      string
	CoinImageURL  string
	CoinsRequired int64
	CoinDiscount  money.Amount
}

// Quote prices an item of mrp selling at price, of which coins may pay up to maxCoinPct (100%
// for rewards), for coin (nil: the game has none):
//
//   - coinDiscount is that share of the price, rounded down to the hundredth, capped by the
//     money value of the player's balance (rounded down) when the coin carries one;
//   - coinsRequired = ceil(coinDiscount × coinsPerUnit), so never more than the balance;
//   - priceAfterCoins = price − coinDiscount;
//   - the offer is nil when the coin can pay nothing (no coin, 0%, an empty balance).
func Quote(currency string, mrp, price money.Amount, maxCoinPct money.Pct, coin *Coin) (Pricing, *CoinOffer) {
	p := Pricing{Currency: currency, MRP: mrp, Price: price, PriceAfterCoins: price, DiscountPct: discountOn(mrp, price)}
	if coin == nil || coin.CoinsPerUnit <= 0 || maxCoinPct <= 0 || price <= 0 {
		return p, nil
	}
	discount := money.Amount(int64(price) * int64(maxCoinPct) / 10000)
	if coin.Balance != nil {
		worth := money.Amount(*coin.Balance * 100 / coin.CoinsPerUnit)
		discount = min(discount, worth)
	}
	if discount <= 0 {
		return p, nil
	}
	p.PriceAfterCoins = price - discount
	return p, &CoinOffer{CoinID: coin.ID, CoinName: coin.Name, CoinImageURL: coin.ImageURL,
		CoinsRequired: CoinsFor(discount, coin.CoinsPerUnit), CoinDiscount: discount}
}

// CoinsFor is ceil(amount × coinsPerUnit) in whole coins.
func CoinsFor(amount money.Amount, coinsPerUnit int64) int64 {
	return (int64(amount)*coinsPerUnit + 99) / 100
}

// discountOn is (mrp − price) / mrp, rounded half up to the hundredth of a percent.
func discountOn(mrp, price money.Amount) money.Pct {
	if mrp <= 0 || price >= mrp {
		return 0
	}
	return money.Pct((int64(mrp-price)*10000 + int64(mrp)/2) / int64(mrp))
}

// Stale reports whether a price snapshot taken at updated is too old to quote at now.
func Stale(updated, now time.Time) bool { return now.Sub(updated) > StaleAfter }
