package catalogue

import (
	"math"
	"slices"

	"github.com/rewardsco/rewards/core/money"
)

// MinFace is the reward's smallest face value: its smallest denomination, its MinValue, or the
// mrp of a coupon or good.
func (r Reward) MinFace() money.Amount {
	switch {
	case !r.Type.denominated():
		return r.MRP
	case r.ValueType == Range:
		return r.MinValue
	case len(r.Denominations) > 0:
		return r.Denominations[0]
	}
	return 0
}

// MaxFace is the reward's largest face value.
func (r Reward) MaxFace() money.Amount {
	switch {
	case !r.Type.denominated():
		return r.MRP
	case r.ValueType == Range:
		return r.MaxValue
	case len(r.Denominations) > 0:
		return r.Denominations[len(r.Denominations)-1]
	}
	return 0
}

// Faces are the face values a player picks from: the denominations of a FIXED gift card or
// credit, the mrp of a coupon or good, none for a RANGE reward.
func (r Reward) Faces() []money.Amount {
	switch {
	case !r.Type.denominated():
		return []money.Amount{r.MRP}
	case r.ValueType == Range:
		return nil
	}
	return r.Denominations
}

// OffersFace reports whether a player may buy face value f.
func (r Reward) OffersFace(f money.Amount) bool {
	if r.Type.denominated() && r.ValueType == Range {
		return f >= r.MinValue && f <= r.MaxValue
	}
	return slices.Contains(r.Faces(), f)
}

// SellingPriceOf is what face value f sells for: f less the discount for a gift card or
// credit, the selling price of a coupon or good.
func (r Reward) SellingPriceOf(f money.Amount) money.Amount {
	if r.Type.denominated() {
		return f.Less(r.DiscountPct)
	}
	return r.SellingPrice
}

// DiscountOnMRP is (mrp − selling price) / mrp of the smallest face value.
func (r Reward) DiscountOnMRP() money.Pct {
	if r.Type.denominated() {
		return r.DiscountPct
	}
	if r.MRP <= 0 {
		return 0
	}
	return money.Pct((int64(r.MRP-r.SellingPrice)*10000 + int64(r.MRP)/2) / int64(r.MRP))
}

// CoinPrice is the coin price of face value f for a coin worth coinsPerUnit coins a unit of
// the currency: ceil(selling price × coinsPerUnit). When the game set override for the
// reward's smallest face value, that price applies there and the other face values scale with
// it: ceil(override × f / smallest face value). Prices are whole coins.
func (r Reward) CoinPrice(f money.Amount, coinsPerUnit int64, override *int64) int64 {
	if override != nil {
		return ceilDiv(money.MulSat(*override, int64(f)), int64(r.MinFace()))
	}
	return ceilDiv(money.MulSat(int64(r.SellingPriceOf(f)), coinsPerUnit), 100)
}

// Prices are a reward's coin prices for one coin.
type Prices struct {
	// Price is the price of the smallest face value; Min and Max span the face values.
	Price, Min, Max int64
}

// PricesFor returns the reward's coin prices for a coin.
func (r Reward) PricesFor(coinsPerUnit int64, override *int64) Prices {
	p := r.CoinPrice(r.MinFace(), coinsPerUnit, override)
	return Prices{Price: p, Min: p, Max: r.CoinPrice(r.MaxFace(), coinsPerUnit, override)}
}

func ceilDiv(a, b int64) int64 {
	if b <= 0 {
		return 0
	}
	if a > math.MaxInt64-b {
		return a/b + 1 // a saturated price stays saturated, without wrapping
	}
	return (a + b - 1) / b
}
