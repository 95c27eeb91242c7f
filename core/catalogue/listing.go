package catalogue

import (
	"cmp"
	"github.com/rewardsco/rewards/core/studio"
	"slices"
	"time"

	"github.com/google/uuid"
)

// Order is how a list of rewards is sorted. GET /rewards names it contentLogic, search names it
// sortBy; both map onto these. Ties are broken by x-score (highest first), then newest, then id,
// so every order is total and pages never overlap.
type Order string

// The orders of reward lists.
const (
	// OrderDefault: x-score, highest first, then newest.
	OrderDefault Order = "DEFAULT"
	// OrderNewest: newest first.
	OrderNewest Order = "NEWEST"
	// OrderTrending: most successful orders in the last 7 days first.
	OrderTrending Order = "TRENDING"
	// OrderPriceLowHigh and OrderPriceHighLow: by coin price of the smallest face value.
	OrderPriceLowHigh Order = "PRICE_LOW_HIGH"
	OrderPriceHighLow Order = "PRICE_HIGH_LOW"
	// OrderDiscount: largest discount on mrp first.
	OrderDiscount Order = "DISCOUNT"
	// OrderRelevance: best match of the search query first.
	OrderRelevance Order = "RELEVANCE"
	// OrderPricingMode: FIXED before RANGE, then relevance.
	OrderPricingMode Order = "PRICING_MODE"
	// OrderMostOrdered: most successful orders in the last 30 days first.
	OrderMostOrdered Order = "MOST_ORDERED"
)

// ContentLogics are the orders GET /rewards takes as contentLogic.
var ContentLogics = map[string]Order{
	"DEFAULT": OrderDefault, "NEWEST": OrderNewest, "TRENDING": OrderTrending,
	"PRICE_LOW_HIGH": OrderPriceLowHigh, "PRICE_HIGH_LOW": OrderPriceHighLow, "DISCOUNT": OrderDiscount,
}

// SortBys are the orders search takes as sortBy.
var SortBys = map[string]Order{
	"relevance": OrderRelevance, "price:low-high": OrderPriceLowHigh, "price:high-low": OrderPriceHighLow,
	"newest": OrderNewest, "pricing-mode": OrderPricingMode, "discount-on-mrp": OrderDiscount,
	"most-ordered": OrderMostOrdered, "x-score": OrderDefault,
}

// Listed is a reward as a game's players see it in a list, with what its order needs.
type Listed struct {
	Reward Reward
	Brand  Brand
	// Override is the game's coin price for the listed coin, if it set one.
	Override *int64
	// Free is the number of unused codes of a pool reward (IsPool); nil when the reward has no
	// pool (unlimited, or the provider's stock).
	Free *int64
	// ProviderStock is what the environment's voucher provider can issue of a synced reward (its
	// cached answer, summed over the face values): 0 when none is available, -1 unlimited; nil
	// when not asked (no provider, or the provider did not answer).
	ProviderStock *int64
	// Orders7d and Orders30d count successful orders in the last 7 and 30 days.
	Orders7d, Orders30d int64
	// Relevance scores a search match; zero outside search.
	Relevance float64
	// CoinsPerUnit is the value of the coin that priced the list (see Prices).
	CoinsPerUnit int64
}

// Prices are the listed reward's coin prices in the coin that priced the list.
func (l Listed) Prices() Prices { return l.Reward.PricesFor(l.CoinsPerUnit, l.Override) }

// Compare orders a before b (negative), after (positive) or as equal (zero, only for the same
// reward) in order o, for a coin worth coinsPerUnit. It is the definition the read model's
// sorted views follow (compareKeys); the storage tests check the two agree.
func Compare(o Order, coinsPerUnit int64, a, b Listed) int {
	price := func(l Listed) int64 { return l.Reward.CoinPrice(l.Reward.MinFace(), coinsPerUnit, l.Override) }
	var c int
	switch o {
	case OrderNewest:
		c = b.Reward.CreatedAt.Compare(a.Reward.CreatedAt)
	case OrderTrending:
		c = cmp.Compare(b.Orders7d, a.Orders7d)
	case OrderMostOrdered:
		c = cmp.Compare(b.Orders30d, a.Orders30d)
	case OrderPriceLowHigh:
		c = cmp.Compare(price(a), price(b))
	case OrderPriceHighLow:
		c = cmp.Compare(price(b), price(a))
	case OrderDiscount:
		c = cmp.Compare(b.Reward.DiscountOnMRP(), a.Reward.DiscountOnMRP())
	case OrderRelevance:
		c = cmp.Compare(b.Relevance, a.Relevance)
	case OrderPricingMode:
		c = cmp.Compare(modeRank(a.Reward), modeRank(b.Reward))
		if c == 0 {
			c = cmp.Compare(b.Relevance, a.Relevance)
		}
	}
	if c != 0 {
		return c
	}
	if c = cmp.Compare(b.Reward.XScore, a.Reward.XScore); c != 0 {
		return c
	}
	if c = b.Reward.CreatedAt.Compare(a.Reward.CreatedAt); c != 0 {
		return c
	}
	return cmp.Compare(a.Reward.ID.String(), b.Reward.ID.String())
}

func modeRank(r Reward) int {
	if r.Type.denominated() && r.ValueType == Range {
		return 1
	}
	return 0
}

// Sort sorts list in order o.
func Sort(o Order, coinsPerUnit int64, list []Listed) {
	slices.SortStableFunc(list, func(a, b Listed) int { return Compare(o, coinsPerUnit, a, b) })
}

// Visible reports whether a game's players see a reward: it is active and unexpired, its brand
// is active, the game has not hidden it, and, when a country is asked for, it is available
// there (a reward or brand with no countries is available everywhere).
func Visible(r Reward, b Brand, hidden bool, country string, now time.Time) bool {
	if !r.IsActive || !b.IsActive || hidden {
		return false
	}
	if r.EndDate != nil && !r.EndDate.After(now) {
		return false
	}
	if country != "" {
		if len(r.Countries) > 0 && !slices.Contains(r.Countries, country) {
			return false
		}
		if len(b.Countries) > 0 && !slices.Contains(b.Countries, country) {
			return false
		}
	}
	return true
}

// ListQuery selects and orders the rewards a game's players see.
type ListQuery struct {
	GameID uuid.UUID
	// Environment picks the voucher provider whose stock a fetch shows (the test environment
	// has its own).
	Environment studio.Environment
	// CoinID and CoinsPerUnit price the list.
	CoinID       uuid.UUID
	CoinsPerUnit int64
	Category     string
	Brand        string
	// GiftCard keeps only gift cards (true) or everything else (false); nil keeps all.
	GiftCard  *bool
	RewardIDs []uuid.UUID
	Country   string
	// Dedupe keeps one reward per brand: the one with the largest discount on mrp.
	Dedupe bool
	Order  Order
	Limit  int
	Offset int
	Now    time.Time
}

// SearchQuery is a search of the catalogue.
type SearchQuery struct {
	ListQuery
	// Text is what the player typed.
	Text string
	// Brands and Categories keep only rewards of these brands or categories (codes or names,
	// exact); unknown ones are ignored.
	Brands, Categories []string
}
