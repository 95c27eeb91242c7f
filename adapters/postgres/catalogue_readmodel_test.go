package postgres_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/postgres"
	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/touchpoints"
)

// seedRandomCatalogue builds a catalogue with every case the visibility and order rules tell
// apart: inactive rewards and brands, past and future end dates, countries on rewards and
// brands, hidden rewards and coin prices of the game, equal coin prices (ties), dedupe by
// brand, orders over 7 and 30 days, brands in several categories.
func (b catalogueBundle) seedRandomCatalogue(t *testing.T, rng *rand.Rand) {
	t.Helper()
	ctx := context.Background()
	for _, c := range []catalogue.Category{{Code: "FOOD", Name: "Food", DisplayOrder: 2}, {Code: "TRAVEL", Name: "Travel", DisplayOrder: 1},
		{Code: "GAMES", Name: "Games", DisplayOrder: 1}, {Code: "EMPTY", Name: "Empty"}} {
		_, err := b.svc.PutCategory(ctx, c)
		require.NoError(t, err)
	}
	brands := []catalogue.Brand{
		{Code: "ZETA", Name: "Zeta", Categories: []string{"FOOD"}, IsActive: true},
		{Code: "ALPHA", Name: "alpha", Categories: []string{"FOOD", "TRAVEL"}, IsActive: true},
		{Code: "BETA", Name: "Beta", Categories: []string{"GAMES"}, Countries: []string{"IN"}, IsActive: true},
		{Code: "GAMMA", Name: "Gamma", Categories: []string{"TRAVEL", "GAMES"}, Countries: []string{"US", "IN"}, IsActive: true},
		{Code: "OFF", Name: "Off", Categories: []string{"FOOD"}, IsActive: false},
		{Code: "SAME", Name: "Zeta", Categories: []string{}, IsActive: true},
	}
	for _, br := range brands {
		_, err := b.svc.PutBrand(ctx, br)
		require.NoError(t, err)
	}
	past, future := time.Now().Add(-time.Hour), time.Now().Add(time.Hour)
	types := []catalogue.Type{catalogue.GiftCard, catalogue.Coupon, catalogue.DigitalCredit, catalogue.Physical}
	for n := range 60 {
		r := catalogue.Reward{Type: types[rng.IntN(len(types))], BrandCode: brands[rng.IntN(len(brands))].Code,
			Name: fmt.Sprintf("Reward %d", n), IsActive: rng.IntN(8) != 0, XScore: float64(rng.IntN(3)),
			FlagAllowStudioEditPrice: rng.IntN(2) == 0}
		switch rng.IntN(6) {
		case 0:
			r.EndDate = &past
		case 1:
			r.EndDate = &future
		}
		switch rng.IntN(4) {
		case 0:
			r.Countries = []string{"IN"}
		case 1:
			r.Countries = []string{"US"}
		}
		randomPrices(rng, &r, 5)
		created, err := b.svc.CreateReward(ctx, catalogue.NewReward{Reward: r})
		require.NoError(t, err)
		b.ids[fmt.Sprint(n)] = created.ID
		if o := rng.IntN(4); o > 0 {
			b.exec(`INSERT INTO catalogue_reward_orders (reward_id, day, orders) VALUES ($1, current_date - 1, $2), ($1, current_date - 20, $3)`,
				created.ID, o, rng.IntN(3))
		}
		yes := true
		switch rng.IntN(6) {
		case 0:
			_, err = b.svc.ChangeGameReward(ctx, b.game.ID, created.ID, catalogue.GameRewardChange{Hidden: &yes})
		case 1:
			if r.FlagAllowStudioEditPrice {
				_, err = b.svc.ChangeGameReward(ctx, b.game.ID, created.ID, catalogue.GameRewardChange{
					CoinPrices: map[uuid.UUID]int64{b.coin.ID: int64(100 * (1 + rng.IntN(4)))}})
			}
		}
		require.NoError(t, err)
	}
}

// randomPrices prices r from few face values (one of faces: ties), as its type is priced: a
// selling price under the mrp, or a range or denominations with a discount.
func randomPrices(rng *rand.Rand, r *catalogue.Reward, faces int) {
	face := inr(int64(10 * (1 + rng.IntN(faces))))
	switch {
	case r.Type == catalogue.Coupon || r.Type == catalogue.Physical:
		r.MRP, r.SellingPrice = face, face-money.Amount(rng.IntN(3))*inr(5)
	case rng.IntN(3) == 0:
		r.ValueType, r.MinValue, r.MaxValue, r.DiscountPct = catalogue.Range, face, face*10, money.Pct(rng.IntN(3)*500)
	default:
		r.ValueType, r.Denominations, r.DiscountPct = catalogue.Fixed, []money.Amount{face, face * 2}, money.Pct(rng.IntN(3)*500)
	}
}

// The read model answers what the SQL answers: every list order, filter and page, one reward's
// fetch, and the brand and category metadata, on a random catalogue (the SQL statements are the
// definition; TestEveryListOrderIsTheOneCoreDefines ties them to catalogue.Compare).
func TestReadModelAgreesWithTheSQL(t *testing.T) {
	t.Parallel()
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	b := setupCatalogue(t)
	b.seedRandomCatalogue(t, rand.New(rand.NewPCG(seed, 18)))
	ctx := context.Background()
	reads := catalogue.NewReadModel(postgres.NewCatalogueSnapshots(postgres.NewDB(b.pool)).InSlicesOf(7), nil) // loaded 7 rewards a statement
	snap, err := reads.Current(ctx)
	require.NoError(t, err)

	yes, no := true, false
	base := b.q
	base.CoinsPerUnit, base.Now = b.coin.CoinsPerUnit, time.Now()
	filters := map[string]func(*catalogue.ListQuery){
		"none":      func(*catalogue.ListQuery) {},
		"country":   func(q *catalogue.ListQuery) { q.Country = "IN" },
		"category":  func(q *catalogue.ListQuery) { q.Category = "TRAVEL" },
		"brand":     func(q *catalogue.ListQuery) { q.Brand = "ALPHA" },
		"giftcards": func(q *catalogue.ListQuery) { q.GiftCard = &yes },
		"others":    func(q *catalogue.ListQuery) { q.GiftCard = &no },
		"dedupe":    func(q *catalogue.ListQuery) { q.Dedupe = true },
		"ids": func(q *catalogue.ListQuery) {
			q.RewardIDs = []uuid.UUID{b.ids["3"], b.ids["1"], b.ids["40"], uuid.New()}
		},
		"other game": func(q *catalogue.ListQuery) {
			q.GameID = uuid.New()
		},
	}
	type row struct {
		ID       uuid.UUID
		Override *int64
		Orders7d int64
		Price    int64
	}
	// Orders7d is what TRENDING sorts by; the SQL counts it for that order only.
	rows := func(o catalogue.Order, list []catalogue.Listed) []row {
		out := make([]row, len(list))
		for i, l := range list {
			out[i] = row{l.Reward.ID, l.Override, l.Orders7d, l.Reward.CoinPrice(l.Reward.MinFace(), base.CoinsPerUnit, l.Override)}
			if o != catalogue.OrderTrending {
				out[i].Orders7d = 0
			}
		}
		return out
	}
	for name, f := range filters {
		for _, o := range catalogue.ContentLogics {
			for _, page := range []struct{ off, lim int }{{0, 100}, {0, 7}, {7, 7}, {50, 20}} {
				q := base
				f(&q)
				q.Order, q.Offset, q.Limit = o, page.off, page.lim
				want, wantTotal, err := b.repo.ListVisible(ctx, q)
				require.NoError(t, err)
				got, gotTotal := snap.List(q)
				where := fmt.Sprintf("filter %s, order %s, page %+v", name, o, page)
				require.Equal(t, rows(o, want), rows(o, got), where)
				if len(want) > 0 {
					require.Equal(t, wantTotal, gotTotal, where)
				}
			}
		}
	}
	for key, id := range b.ids {
		for _, country := range []string{"", "IN", "US"} {
			q := base
			q.Country = country
			want, wantErr := b.repo.GetVisible(ctx, q, id)
			got, gotErr := snap.Get(q, id)
			require.Equal(t, wantErr, gotErr, "reward %s in %q", key, country)
			require.Equal(t, want.Override, got.Override, "reward %s in %q", key, country)
			require.Equal(t, want.Reward.ID, got.Reward.ID, "reward %s in %q", key, country)
		}
	}
	brandRows := func(list []catalogue.BrandMeta) []string {
		out := []string{}
		for _, m := range list {
			out = append(out, fmt.Sprintf("%s:%d", m.Brand.Code, m.RewardCount))
		}
		return out
	}
	for _, gift := range []*bool{nil, &yes, &no} {
		for _, cat := range []string{"", "FOOD", "GAMES", "NONE"} {
			want, err := b.repo.Brands(ctx, b.game.ID, gift, cat, base.Now)
			require.NoError(t, err)
			require.Equal(t, brandRows(want), brandRows(snap.Brands(b.game.ID, gift, cat, base.Now)), "giftCard %v, category %q", gift, cat)
		}
	}
	catRows := func(list []catalogue.CategoryMeta) []string {
		out := []string{}
		for _, m := range list {
			out = append(out, fmt.Sprintf("%s:%d", m.Category.Code, m.RewardCount))
		}
		return out
	}
	want, err := b.repo.Categories(ctx, b.game.ID, base.Now)
	require.NoError(t, err)
	require.Equal(t, catRows(want), catRows(snap.Categories(b.game.ID, base.Now)))
	require.NotEmpty(t, want, "the fixture has categories with visible rewards")
}

// The read model ranks a touchpoint rule as TouchpointsBestRewards does (every order, type,
// category and brand, stock aside), and sees a reward by id as TouchpointsRewards does (hidden,
// price override) or leaves it to the SQL (inactive reward or brand, no such reward).
func TestReadModelRanksTouchpointRulesAsTheSQL(t *testing.T) {
	t.Parallel()
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	b := setupCatalogue(t)
	b.seedRandomCatalogue(t, rand.New(rand.NewPCG(seed, 19)))
	ctx := context.Background()
	database := postgres.NewDB(b.pool)
	snap, err := catalogue.NewReadModel(postgres.NewCatalogueSnapshots(database), nil).Current(ctx)
	require.NoError(t, err)
	repo := postgres.NewTouchpointsStore(database).Repo()
	now := time.Now()

	type row struct {
		ID       uuid.UUID
		Override *int64
	}
	checked := 0
	for _, sortBy := range []string{"DEFAULT", "NEWEST", "PRICE_LOW_HIGH", "PRICE_HIGH_LOW", "DISCOUNT"} {
		for _, typ := range []catalogue.Type{"", catalogue.GiftCard, catalogue.Coupon, catalogue.Physical} {
			for _, f := range []struct{ category, brand string }{{"", ""}, {"TRAVEL", ""}, {"", "ALPHA"}, {"GAMES", "GAMMA"}, {"NONE", ""}} {
				for _, game := range []uuid.UUID{b.game.ID, uuid.New()} {
					q := touchpoints.RewardQuery{GameID: game, CoinID: b.coin.ID, Type: typ, Category: f.category, Brand: f.brand,
						SortBy: sortBy, Limit: 1000, Now: now}
					want, err := repo.BestRewards(ctx, q)
					require.NoError(t, err)
					ranked := snap.Rank(catalogue.RuleQuery{GameID: game, CoinID: b.coin.ID, Type: typ, Category: f.category,
						Brand: f.brand, SortBy: sortBy, Now: now})
					wantRows, gotRows := []row{}, []row{}
					for _, it := range want {
						wantRows = append(wantRows, row{it.Reward.ID, it.Override})
					}
					for i := range ranked.Len() {
						l := ranked.At(i)
						gotRows = append(gotRows, row{l.Reward.ID, l.Override})
					}
					require.Equal(t, wantRows, gotRows, "sortBy %s, type %q, %+v", sortBy, typ, f)
					checked += len(want)
				}
			}
		}
	}
	require.NotZero(t, checked, "the fixture has rewards rules pick")

	ids := []uuid.UUID{uuid.New()}
	for _, id := range b.ids {
		ids = append(ids, id)
	}
	want, err := repo.Rewards(ctx, b.game.ID, b.coin.ID, ids)
	require.NoError(t, err)
	byID := map[uuid.UUID]touchpoints.RewardItem{}
	for _, it := range want {
		byID[it.Reward.ID] = it
	}
	held := 0
	for _, id := range ids {
		l, hidden, ok := snap.Seen(b.game.ID, b.coin.ID, id)
		it, exists := byID[id]
		if !ok {
			// Only the storage holds it: no such reward, or one nobody sees.
			require.False(t, exists && it.Reward.IsActive && it.Brand.IsActive, "reward %s", id)
			continue
		}
		held++
		require.True(t, exists, "reward %s", id)
		require.Equal(t, it.Hidden, hidden, "reward %s", id)
		require.Equal(t, it.Override, l.Override, "reward %s", id)
		require.Equal(t, it.Reward.Name, l.Reward.Name, "reward %s", id)
		require.Equal(t, it.Brand.Name, l.Brand.Name, "reward %s", id)
		require.Equal(t, it.Active(now), catalogue.Visible(l.Reward, l.Brand, hidden, "", now), "reward %s", id)
	}
	require.NotZero(t, held)
}

// A change of what a game changed of the rewards alone (hiding, coin prices) is loaded alone, the
// rest of the snapshot kept; any other change since the snapshot (a reward renamed, the version
// moved by hand) asks for a whole load.
func TestReadModelLoadsAGamesChangeAlone(t *testing.T) {
	t.Parallel()
	b := setupCatalogue(t)
	b.seedRandomCatalogue(t, rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 20)))
	ctx := context.Background()
	src := postgres.NewCatalogueSnapshots(postgres.NewDB(b.pool))
	reads := catalogue.NewReadModel(src, nil)
	first, err := reads.Current(ctx)
	require.NoError(t, err)
	q := b.q
	q.CoinsPerUnit, q.Now, q.Order, q.Limit = b.coin.CoinsPerUnit, time.Now(), catalogue.OrderDefault, 1000
	listed, total := first.List(q)
	require.NotEmpty(t, listed)
	id := listed[0].Reward.ID
	loadGames := func(after int64) (int64, []catalogue.GameReward, bool) {
		v, games, ok, err := src.LoadGames(ctx, after)
		require.NoError(t, err)
		return v, games, ok
	}
	hidden := func(games []catalogue.GameReward) bool {
		return slices.ContainsFunc(games, func(g catalogue.GameReward) bool { return g.GameID == b.game.ID && g.RewardID == id && g.Hidden })
	}

	yes, no := true, false
	_, err = b.svc.ChangeGameReward(ctx, b.game.ID, id, catalogue.GameRewardChange{Hidden: &yes})
	require.NoError(t, err)
	v, games, ok := loadGames(first.Version())
	require.True(t, ok, "a game's hiding alone")
	require.Greater(t, v, first.Version())
	require.True(t, hidden(games))
	second, err := reads.Current(ctx) // no watcher: it compares the version first
	require.NoError(t, err)
	require.Equal(t, v, second.Version())
	_, hiddenTotal := second.List(q)
	require.Equal(t, total-1, hiddenTotal, "the hidden reward is not listed")
	other := q
	other.GameID = uuid.New()
	_, otherBefore := first.List(other)
	_, otherTotal := second.List(other)
	require.Equal(t, otherBefore, otherTotal, "for another game it is")
	_, err = second.Get(q, id)
	require.Error(t, err)

	_, err = b.svc.ChangeGameReward(ctx, b.game.ID, id, catalogue.GameRewardChange{Hidden: &no})
	require.NoError(t, err)
	_, games, ok = loadGames(first.Version())
	require.True(t, ok, "two changes of the games alone since the first snapshot")
	require.False(t, hidden(games))

	b.exec(`UPDATE catalogue_rewards SET name = name || ' renamed' WHERE id = $1`, id)
	renamed, err := src.Version(ctx)
	require.NoError(t, err)
	_, _, ok = loadGames(second.Version())
	require.False(t, ok, "a reward renamed since")
	_, err = b.svc.ChangeGameReward(ctx, b.game.ID, id, catalogue.GameRewardChange{Hidden: &yes})
	require.NoError(t, err)
	_, _, ok = loadGames(second.Version())
	require.False(t, ok, "a reward renamed between the games' changes")
	_, _, ok = loadGames(renamed)
	require.True(t, ok, "only the games changed since the rename")
	third, err := reads.Current(ctx)
	require.NoError(t, err)
	got, err := third.Get(other, id)
	require.NoError(t, err)
	require.True(t, strings.HasSuffix(got.Reward.Name, " renamed"), "the whole load took the rename")

	b.exec(`UPDATE catalogue_version SET version = version + 1`)
	_, _, ok = loadGames(third.Version())
	require.False(t, ok, "a version moved by hand")
}
