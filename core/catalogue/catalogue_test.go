package catalogue_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/money"
)

func units(u int64) money.Amount { return money.Amount(u * 100) }

func ptr(v int64) *int64 { return &v }

func TestCoinPrices(t *testing.T) {
	t.Parallel()
	giftCard := catalogue.Reward{Type: catalogue.GiftCard, ValueType: catalogue.Fixed,
		Denominations: []money.Amount{units(100), units(250), units(1000)}, DiscountPct: 1250}
	coupon := catalogue.Reward{Type: catalogue.Coupon, MRP: money.Amount(19999), SellingPrice: money.Amount(14999)}
	rng := catalogue.Reward{Type: catalogue.DigitalCredit, ValueType: catalogue.Range, MinValue: units(10), MaxValue: units(500), DiscountPct: 333}
	for _, c := range []struct {
		name     string
		r        catalogue.Reward
		face     money.Amount
		perUnit  int64
		override *int64
		want     int64
	}{
		{"discounted face value, 10 coins a unit", giftCard, units(100), 10, nil, 875},        // 87.50 × 10
		{"larger denomination", giftCard, units(250), 10, nil, 2188},                          // 218.75 × 10 = 2187.5 → up
		{"one coin a unit rounds up", giftCard, units(100), 1, nil, 88},                       // 87.50 → 88
		{"coupon uses its selling price", coupon, coupon.MRP, 3, nil, 450},                    // 149.99 × 3 = 449.97 → 450
		{"range value", rng, units(10), 7, nil, 68},                                           // 10 less 3.33% = 9.67 (9.667 half up) × 7 = 67.69 → 68
		{"override on the smallest denomination", giftCard, units(100), 10, ptr(500), 500},    //
		{"override scales to larger denominations", giftCard, units(250), 10, ptr(500), 1250}, // 500 × 250 / 100
		{"override scaling rounds up", giftCard, units(1000), 10, ptr(333), 3330},             //
		{"override scaling with a remainder", giftCard, units(250), 10, ptr(333), 833},        // 832.5 → 833
	} {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, c.r.CoinPrice(c.face, c.perUnit, c.override))
		})
	}
	require.Equal(t, catalogue.Prices{Price: 875, Min: 875, Max: 8750}, giftCard.PricesFor(10, nil))
	require.Equal(t, catalogue.Prices{Price: 450, Min: 450, Max: 450}, coupon.PricesFor(3, nil))
	require.Equal(t, money.Pct(2500), coupon.DiscountOnMRP(), "(199.99 − 149.99) / 199.99 = 25.00%")
	require.True(t, rng.OffersFace(units(42)))
	require.False(t, rng.OffersFace(units(501)))
	require.True(t, giftCard.OffersFace(units(250)))
	require.False(t, giftCard.OffersFace(units(200)))
}

func TestVisibility(t *testing.T) {
	t.Parallel()
	now := time.Now()
	past, future := now.Add(-time.Minute), now.Add(time.Hour)
	brand := catalogue.Brand{Code: "AMAZON", IsActive: true}
	reward := catalogue.Reward{IsActive: true}
	for _, c := range []struct {
		name    string
		r       catalogue.Reward
		b       catalogue.Brand
		hidden  bool
		country string
		want    bool
	}{
		{"active, everywhere", reward, brand, false, "", true},
		{"hidden by the game", reward, brand, true, "", false},
		{"inactive reward", catalogue.Reward{}, brand, false, "", false},
		{"inactive brand", reward, catalogue.Brand{}, false, "", false},
		{"expired", catalogue.Reward{IsActive: true, EndDate: &past}, brand, false, "", false},
		{"ends later", catalogue.Reward{IsActive: true, EndDate: &future}, brand, false, "", true},
		{"no countries means everywhere", reward, brand, false, "IN", true},
		{"reward of another country", catalogue.Reward{IsActive: true, Countries: []string{"US"}}, brand, false, "IN", false},
		{"reward of the country", catalogue.Reward{IsActive: true, Countries: []string{"US", "IN"}}, brand, false, "IN", true},
		{"brand of another country", reward, catalogue.Brand{IsActive: true, Countries: []string{"GB"}}, false, "IN", false},
		{"no country asked", catalogue.Reward{IsActive: true, Countries: []string{"US"}}, brand, false, "", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, catalogue.Visible(c.r, c.b, c.hidden, c.country, now))
		})
	}
}

// fixture is a small catalogue on which every order differs; the storage tests run the SQL on
// the same shape of data.
func fixture() []catalogue.Listed {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	mk := func(key string, i int, r catalogue.Reward, xscore float64, o7, o30 int64, rel float64) catalogue.Listed {
		r.ID = uuid.MustParse("00000000-0000-4000-8000-00000000000" + string(rune('0'+i)))
		r.Name, r.XScore, r.CreatedAt = key, xscore, t0.Add(time.Duration(i)*time.Hour)
		return catalogue.Listed{Reward: r, Orders7d: o7, Orders30d: o30, Relevance: rel}
	}
	return []catalogue.Listed{
		mk("A", 1, catalogue.Reward{Type: catalogue.GiftCard, ValueType: catalogue.Fixed, Denominations: []money.Amount{units(100)}, DiscountPct: 1000}, 5, 1, 21, 0.5),
		mk("B", 2, catalogue.Reward{Type: catalogue.GiftCard, ValueType: catalogue.Range, MinValue: units(50), MaxValue: units(500), DiscountPct: 1000}, 6, 9, 9, 0.9),
		mk("C", 3, catalogue.Reward{Type: catalogue.Coupon, MRP: units(250), SellingPrice: units(200)}, 3, 4, 5, 0.1),
		mk("D", 4, catalogue.Reward{Type: catalogue.GiftCard, ValueType: catalogue.Fixed, Denominations: []money.Amount{units(10)}}, 2, 0, 0, 0.7),
		mk("E", 5, catalogue.Reward{Type: catalogue.DigitalCredit, ValueType: catalogue.Fixed, Denominations: []money.Amount{units(50)}}, 4, 6, 6, 0.3),
	}
}

func TestEveryOrder(t *testing.T) {
	t.Parallel()
	want := map[catalogue.Order]string{
		catalogue.OrderDefault:      "BAECD", // x-score
		catalogue.OrderNewest:       "EDCBA",
		catalogue.OrderTrending:     "BECAD", // 7-day orders
		catalogue.OrderMostOrdered:  "ABECD", // 30-day orders
		catalogue.OrderPriceLowHigh: "DBEAC", // 100, 450, 500, 900, 2000 coins
		catalogue.OrderPriceHighLow: "CAEBD",
		catalogue.OrderDiscount:     "CBAED", // 20%, 10% (x-score breaks the tie), 0%
		catalogue.OrderRelevance:    "BDAEC",
		catalogue.OrderPricingMode:  "DAECB", // FIXED by relevance, then RANGE
	}
	seen := map[string]catalogue.Order{}
	for o, keys := range want {
		list := fixture()
		slices.Reverse(list)
		catalogue.Sort(o, 10, list)
		var got strings.Builder
		for _, l := range list {
			got.WriteString(l.Reward.Name)
		}
		require.Equal(t, keys, got.String(), "order %s", o)
		if other, dup := seen[keys]; dup {
			t.Fatalf("%s and %s give the same order", o, other)
		}
		seen[keys] = o
	}
	// Every name of the API maps onto an order.
	for name, o := range catalogue.ContentLogics {
		require.Contains(t, want, o, name)
	}
	for name, o := range catalogue.SortBys {
		require.Contains(t, want, o, name)
	}
}

func TestLocalisationFallsBack(t *testing.T) {
	t.Parallel()
	tr := catalogue.Translations{"hi": {Name: "अमेज़न"}}
	name, desc := tr.Localise("hi", "Amazon", "Everything store")
	require.Equal(t, "अमेज़न", name)
	require.Equal(t, "Everything store", desc, "no Hindi description: the base text")
	name, _ = tr.Localise("ta", "Amazon", "")
	require.Equal(t, "Amazon", name)
}

func TestCodeOf(t *testing.T) {
	t.Parallel()
	require.Equal(t, "FOOD_DINING", catalogue.CodeOf("Food & Dining"))
	require.Equal(t, "AMAZON_IN", catalogue.CodeOf("amazon-in"))
	require.Equal(t, "XX", catalogue.CodeOf("!"))
	require.True(t, catalogue.ValidCode(catalogue.CodeOf("Ä weird — name 123")))
}
