package postgres_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/postgres"
	"github.com/rewardsco/rewards/core/catalogue"
)

// searchWords are the words the random search catalogue is written in: repeated across names,
// descriptions and categories (rank ties, several positions), with accents, hyphens, dots and
// apostrophes (PostgreSQL's parser makes compound lexemes of some).
var searchWords = []string{"gift", "card", "voucher", "coffee", "headphones", "electronics", "premium", "e-gift", "mega",
	"deal", "flat", "off", "amazon.com", "kids", "pizza", "café", "giftbox", "cardamom", "100", "2x", "wireless", "o'brien"}

// seedRandomSearchCatalogue builds a random catalogue to search: names and descriptions from
// searchWords, translations, brands (one inactive) in categories, and every visibility case.
func (b catalogueBundle) seedRandomSearchCatalogue(t *testing.T, rng *rand.Rand) []catalogue.Brand {
	t.Helper()
	ctx := context.Background()
	for _, c := range []catalogue.Category{{Code: "FOOD", Name: "Food & Dining", DisplayOrder: 2}, {Code: "TECH", Name: "Electronics"},
		{Code: "GAMES", Name: "Games", DisplayOrder: 1}, {Code: "EMPTY", Name: "Coffee Corner"}} {
		_, err := b.svc.PutCategory(ctx, c)
		require.NoError(t, err)
	}
	brands := []catalogue.Brand{
		{Code: "CCD", Name: "Café Coffee Day", Categories: []string{"FOOD"}, IsActive: true, Description: "coffee and more"},
		{Code: "AMZ", Name: "Amazon.com", Categories: []string{"TECH", "GAMES"}, IsActive: true},
		{Code: "MCD", Name: "McDonald's", Categories: []string{"FOOD"}, IsActive: true, Countries: []string{"IN"},
			Translations: catalogue.Translations{"hi": {Name: "मैकडॉनल्ड्स"}}},
		{Code: "SONY", Name: "Sony Headphones", Categories: []string{"TECH"}, IsActive: true},
		{Code: "EGIFT", Name: "e-Gift Hub", Categories: []string{}, IsActive: true, Description: "gift cards of every kind"},
		{Code: "GONE", Name: "Gone Gifts", Categories: []string{"GAMES"}, IsActive: false},
		{Code: "PIZZA", Name: "Pizza", Categories: []string{"FOOD", "GAMES"}, IsActive: true},
	}
	for _, br := range brands {
		_, err := b.svc.PutBrand(ctx, br)
		require.NoError(t, err)
	}
	words := func(n int) string {
		out := make([]string, n)
		for i := range out {
			out[i] = searchWords[rng.IntN(len(searchWords))]
		}
		return strings.Join(out, " ")
	}
	past, future := time.Now().Add(-time.Hour), time.Now().Add(time.Hour)
	types := []catalogue.Type{catalogue.GiftCard, catalogue.Coupon, catalogue.DigitalCredit, catalogue.Physical}
	for n := range 90 {
		br := brands[rng.IntN(len(brands))]
		r := catalogue.Reward{Type: types[rng.IntN(len(types))], BrandCode: br.Code, Name: words(1 + rng.IntN(3)),
			Description: words(rng.IntN(12)), IsActive: rng.IntN(10) != 0, XScore: float64(rng.IntN(2)),
			FlagAllowStudioEditPrice: true}
		if rng.IntN(5) == 0 {
			r.Name = br.Name // an exact brand name
		}
		if rng.IntN(4) == 0 {
			r.Translations = catalogue.Translations{"pt-BR": {Name: words(2), Description: words(3)}}
		}
		switch rng.IntN(8) {
		case 0:
			r.EndDate = &past
		case 1:
			r.EndDate = &future
		}
		if rng.IntN(5) == 0 {
			r.Countries = []string{"US"}
		}
		randomPrices(rng, &r, 4)
		created, err := b.svc.CreateReward(ctx, catalogue.NewReward{Reward: r})
		require.NoError(t, err)
		b.ids[fmt.Sprint(n)] = created.ID
		if o := rng.IntN(4); o > 0 {
			b.exec(`INSERT INTO catalogue_reward_orders (reward_id, day, orders) VALUES ($1, current_date - 1, $2), ($1, current_date - 20, $3)`,
				created.ID, o, rng.IntN(3))
		}
		yes := true
		switch rng.IntN(8) {
		case 0:
			_, err = b.svc.ChangeGameReward(ctx, b.game.ID, created.ID, catalogue.GameRewardChange{Hidden: &yes})
		case 1:
			_, err = b.svc.ChangeGameReward(ctx, b.game.ID, created.ID, catalogue.GameRewardChange{
				CoinPrices: map[uuid.UUID]int64{b.coin.ID: int64(100 * (1 + rng.IntN(4)))}})
		}
		require.NoError(t, err)
	}
	return brands
}

// typo is w with one slip: a letter changed, dropped, doubled or two swapped.
func typo(rng *rand.Rand, w string) string {
	r := []rune(w)
	if len(r) < 4 {
		return w + "x"
	}
	i := 1 + rng.IntN(len(r)-2)
	switch rng.IntN(4) {
	case 0:
		r[i] = 'q'
	case 1:
		r = append(r[:i], r[i+1:]...)
	case 2:
		r = append(r[:i+1], r[i:]...)
	default:
		r[i], r[i+1] = r[i+1], r[i]
	}
	return string(r)
}

// The read model searches as the reference SQL does (CatalogueReference: catalogueSearch,
// catalogueBrands, catalogueCategories): the same rewards, in the same order, with the same
// relevance to the last bit (textmatch.go's rule against PostgreSQL's), for words, prefixes,
// several words, exact names, typos and nonsense, every sort, brand and category filters by code
// or name (unknown ones ignored), a country, and pages; and the same brands and categories.
func TestReadModelSearchesAsTheSQL(t *testing.T) {
	t.Parallel()
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 18))
	b := setupCatalogue(t)
	brands := b.seedRandomSearchCatalogue(t, rng)
	ctx := context.Background()
	reads := catalogue.NewReadModel(postgres.NewCatalogueSnapshots(postgres.NewDB(b.pool)).InSlicesOf(7), nil) // loaded 7 rewards a statement
	snap, err := reads.Current(ctx)
	require.NoError(t, err)
	require.NoError(t, snap.SearchIndexErr())
	require.True(t, snap.Searches(), "built")

	texts := []string{"zzzz", "!!", "gift-card", "GIFT card", "  coffee  ", "e-gift", "amazon", "com", "o'brien", "café",
		"cafe", "мега", "100", "2x", "headphones wireless", "gift gift", "card gift", "giftbox", "mcdonald's", "x"}
	for _, w := range searchWords {
		variants := []string{w, w[:min(len(w), 1+rng.IntN(4))], typo(rng, w), w + " " + searchWords[rng.IntN(len(searchWords))]}
		rng.Shuffle(len(variants), func(i, j int) { variants[i], variants[j] = variants[j], variants[i] })
		texts = append(texts, variants[:2]...)
	}
	for _, br := range brands {
		texts = append(texts, br.Name, typo(rng, strings.ToLower(br.Name)))
	}
	for i := range 8 {
		l, err := b.ref.GetVisible(ctx, catalogue.ListQuery{GameID: b.game.ID, CoinID: b.coin.ID, Now: time.Now()}, b.ids[fmt.Sprint(i)])
		if err == nil {
			texts = append(texts, l.Reward.Name) // an exact reward name ranks first
		}
	}
	filters := map[string]func(*catalogue.SearchQuery){
		"none":             func(*catalogue.SearchQuery) {},
		"country":          func(q *catalogue.SearchQuery) { q.Country = "IN" },
		"brand code":       func(q *catalogue.SearchQuery) { q.Brands = []string{"CCD", "SONY"} },
		"brand name":       func(q *catalogue.SearchQuery) { q.Brands = []string{"pizza", "AMAZON.COM"} },
		"inactive brand":   func(q *catalogue.SearchQuery) { q.Brands = []string{"GONE"} },
		"unknown brand":    func(q *catalogue.SearchQuery) { q.Brands = []string{"nope"} },
		"category code":    func(q *catalogue.SearchQuery) { q.Categories = []string{"FOOD"} },
		"category name":    func(q *catalogue.SearchQuery) { q.Categories = []string{"electronics", "Games"} },
		"unknown category": func(q *catalogue.SearchQuery) { q.Categories = []string{"nope"} },
		"both":             func(q *catalogue.SearchQuery) { q.Brands, q.Categories = []string{"AMZ"}, []string{"GAMES"} },
		"other game":       func(q *catalogue.SearchQuery) { q.GameID = uuid.New() },
	}
	type row struct {
		ID        uuid.UUID
		Relevance float64
		Override  *int64
	}
	rows := func(list []catalogue.Listed) []row {
		out := make([]row, len(list))
		for i, l := range list {
			out[i] = row{l.Reward.ID, l.Relevance, l.Override}
		}
		return out
	}
	now := time.Now()
	checked, found := 0, 0
	for _, text := range texts {
		for name, f := range filters {
			if name != "none" && rng.IntN(3) != 0 {
				continue // a third of the filters with each text
			}
			// Every order without filters, one at random with each filter.
			orders := []catalogue.Order{catalogue.OrderRelevance, catalogue.OrderPricingMode, catalogue.OrderPriceLowHigh,
				catalogue.OrderPriceHighLow, catalogue.OrderNewest, catalogue.OrderDiscount, catalogue.OrderMostOrdered, catalogue.OrderDefault}
			if name != "none" {
				orders = []catalogue.Order{orders[rng.IntN(len(orders))]}
			}
			for _, o := range orders {
				pages := []struct{ off, lim int }{{0, 100}}
				if name == "none" && o == catalogue.OrderRelevance {
					pages = append(pages, struct{ off, lim int }{0, 5}, struct{ off, lim int }{5, 5})
				}
				for _, page := range pages {
					q := catalogue.SearchQuery{ListQuery: catalogue.ListQuery{GameID: b.game.ID, CoinID: b.coin.ID,
						CoinsPerUnit: b.coin.CoinsPerUnit, Order: o, Offset: page.off, Limit: page.lim, Now: now}, Text: text}
					f(&q)
					want, wantTotal, err := b.ref.Search(ctx, q)
					require.NoError(t, err)
					got, gotTotal := snap.Search(q)
					where := fmt.Sprintf("search %q, filter %s, order %s, page %+v", text, name, o, page)
					require.Equal(t, rows(want), rows(got), where)
					if len(want) > 0 {
						require.Equal(t, wantTotal, gotTotal, where)
						found++
					}
					checked++
				}
			}
		}
		wantBrands, err := b.ref.SearchBrands(ctx, b.game.ID, text, 20, now)
		require.NoError(t, err)
		gotBrands := snap.SearchBrands(b.game.ID, text, 20, now)
		require.Equal(t, brandCodes(wantBrands), brandCodes(gotBrands), "brands of %q", text)
		wantCats, err := b.ref.SearchCategories(ctx, b.game.ID, text, 20, now)
		require.NoError(t, err)
		gotCats := snap.SearchCategories(b.game.ID, text, 20, now)
		require.Equal(t, categoryCodes(wantCats), categoryCodes(gotCats), "categories of %q", text)
	}
	t.Logf("%d searches compared, %d of them finding rewards", checked, found)
	require.Greater(t, found, checked/4, "most searches find something")
}

func brandCodes(list []catalogue.BrandMeta) []string {
	out := []string{}
	for _, m := range list {
		out = append(out, fmt.Sprintf("%s:%d", m.Brand.Code, m.RewardCount))
	}
	return out
}

func categoryCodes(list []catalogue.CategoryMeta) []string {
	out := []string{}
	for _, m := range list {
		out = append(out, fmt.Sprintf("%s:%d", m.Category.Code, m.RewardCount))
	}
	return out
}
